// The README's five-minute try runs as written (the block after its marker), in one shell from the
// checkout: it starts its own emulator, uses a local backend under $HOME (a fresh one here) and ends
// by checking the emulator holds nothing. Every example's README is held to the same in
// test/docs/example-commands.test.ts (`make test-full`); that each has commands is checked here.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";
import { EXAMPLES } from "../support/stack";
import { markedBlock, nodejsExamples, runScript, shBlocks } from "./shell-blocks";

jest.setTimeout(900_000);

test("every TypeScript example has a README with commands", () => {
  const all = readdirSync(EXAMPLES).filter((d) => existsSync(join(EXAMPLES, d, "Pulumi.yaml")));
  for (const d of all) expect(`${d}: ${existsSync(join(EXAMPLES, d, "README.md")) ? "README" : "no README"}`).toBe(`${d}: README`);
  expect(nodejsExamples).toEqual(expect.arrayContaining(["quickstart", "web-app", "mail-domain", "mail-sandbox", "static-site", "full-stack"]));
  for (const d of nodejsExamples) {
    const script = shBlocks(readFileSync(join(EXAMPLES, d, "README.md"), "utf8")).join("\n");
    expect([d, /^pulumi up --yes.*\npulumi preview --refresh --expect-no-changes\b/m.test(script)]).toEqual([d, true]);
  }
});

test("README.md: the five-minute try runs as written", async () => {
  const r = await runScript(markedBlock(readFileSync(join(ROOT, "README.md"), "utf8"), "readme-commands.test.ts"), ROOT);
  expect({ code: r.code, tail: r.code === 0 ? "" : r.out.slice(-4000) }).toEqual({ code: 0, tail: "" });
  expect(r.out).toMatch(/Resources:\s+\+ 4 created/); // the stack, the project and its two environments
});
