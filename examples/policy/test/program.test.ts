// Unit tests of ../index.ts: every resource goes through the provider's own check (a bad input
// fails here with the message `pulumi preview` would give), and gets the outputs the platform fills
// in. No platform, no CLI: `npx jest -c jest.config.js`.
import * as pulumi from "@pulumi/pulumi";
import { setCloudPlatformMocks } from "pulumi-cloudplatform/testing/mocks";

const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

let program: typeof import("../index");
beforeAll(async () => {
  await setCloudPlatformMocks({ project: "policy-example", stack: "dev" });
  program = await import("../index");
});

test("the web service is served at its platform URL", async () => {
  expect(await valueOf(program.url)).toMatch(/^https:\/\/web-[0-9a-f]{6}\.cloudplatform\.app$/);
});

test("it runs on a paid tier with a health check", async () => {
  expect(await valueOf(program.web.tier)).toBe("STARTER");
  expect(await valueOf(program.web.healthCheckPath)).toBe("/healthz");
});
