// The dynamic adapter (host.ts) as Pulumi's dynamic-provider host calls it: check marks each secret
// variable's value and each file's content secret on its own (the SDK no longer wraps the lists),
// and names a bucket with no name from the SDK's identity, the same at every check.
import * as host from "../../provider/host";
import { SECRET_SIG, SIG } from "../../provider/secrets";

const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
const IDENTITY = "proj/dev/cloudplatform:Bucket::media";

test("check: a secret variable's value and a file's content are secret each; the other variables stay plain", async () => {
  const r = await host.check("Service", {}, {
    environmentId: "e1", name: "web", type: "WEB", image: "nginx:1",
    envVars: [{ key: "MODE", value: "production" }, { key: "TOKEN", value: "t0ken-value", secret: true }],
    secretFiles: [{ path: "/etc/a.json", content: "{}" }],
    __identity: "proj/dev/cloudplatform:Service::web",
  });
  expect((r.inputs as any).envVars).toEqual([
    { key: "MODE", value: "production", scope: "ALL", secret: false },
    { key: "TOKEN", value: secret("t0ken-value"), scope: "ALL", secret: true },
  ]);
  expect((r.inputs as any).secretFiles).toEqual([{ path: "/etc/a.json", content: secret("{}") }]);
  expect((r.inputs as any).__identity).toBe("proj/dev/cloudplatform:Service::web");
});

test("check: a bucket with no name is named from the SDK's identity, the same each time, another for a replacing change", async () => {
  const name = async (news: Record<string, unknown>, olds: Record<string, unknown> = {}) =>
    ((await host.check("Bucket", olds, { ...news, __logicalName: "media", __identity: IDENTITY })).inputs as any).name;
  const first = await name({});
  expect(first).toMatch(/^media-[a-z0-9]{7}$/);
  expect(await name({})).toBe(first);
  // kept once made; a region change that replaces the bucket draws another, and so does the engine's
  // second check of that replacement, which has no old inputs
  expect(await name({ region: "af-west-1" }, { name: first, __autoNamed: true, region: "af-west-1" })).toBe(first);
  const moved = await name({ region: "us-east-1" }, { name: first, __autoNamed: true, region: "af-west-1" });
  expect(moved).not.toBe(first);
  expect(await name({ region: "us-east-1" })).toBe(moved);
});
