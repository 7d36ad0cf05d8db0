// The dynamic adapter (host.ts) as Pulumi's dynamic-provider host calls it: check marks each secret
// variable's value and each file's content secret on its own (the SDK no longer wraps the lists),
// and names a bucket with no name from the SDK's identity, the same at every check.
import * as host from "../../provider/host";
import { SECRET_SIG, SIG } from "../../provider/secrets";
import { emulator, type TestEmulator } from "../support/emulator";

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

describe("against the emulator", () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await emulator({ settings: { speed: 0 } });
    await host.configure({ config: { get: (k: string) => ({ "cloudplatform:apiKey": emu.apiKey, "cloudplatform:baseUrl": emu.baseUrl })[k] } });
  });
  afterAll(async () => emu?.close());

  test("env vars sent as a map by key stay a map, each secret value secret on its own; a read finds nothing changed, or each change by key", async () => {
    const api = emu.client();
    const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "maps" });
    const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "production" });
    const checked = await host.check("Service", {}, {
      environmentId: env.id, name: "web", type: "WEB", image: "nginx:1",
      envVars: { MODE: { value: "calm" }, TOKEN: { value: "t0ken-value", secret: true } },
    });
    const inputs = checked.inputs as any;
    expect(inputs.envVars).toEqual({ MODE: { value: "calm", scope: "ALL", secret: false }, TOKEN: { value: secret("t0ken-value"), scope: "ALL", secret: true } });
    // The engine gives the host no secrets: plain values come back.
    const plain = { ...inputs, envVars: { ...inputs.envVars, TOKEN: { ...inputs.envVars.TOKEN, value: "t0ken-value" } } };
    const created = await host.create("Service", plain);
    const outs = { ...(created.outs as any), envVars: (created.outs as any).envVars.map((v: any) => ({ ...v, value: v.value?.value ?? v.value })) };
    expect(await host.read("Service", created.id, outs)).toEqual({ id: created.id, props: created.outs });

    await api.patch(`/v1/services/${created.id}/env-vars`, { envVars: [{ key: "MODE", value: "panic" }, { key: "TOKEN", value: "t0ken-rotated", secret: true }] });
    const r = (await host.read("Service", created.id, outs)) as any;
    expect(r.inputs.envVars).toEqual({ MODE: { value: "panic", scope: "ALL", secret: false }, TOKEN: { value: secret("t0ken-rotated"), scope: "ALL", secret: true } });
    expect(r.props.__drift).toEqual([{ path: ["envVars", "MODE", "value"], kind: "update" }, { path: ["envVars", "TOKEN", "value"], kind: "update" }]);
    await api.delete(`/v1/projects/${project.id}`);
  });

  test("state written before (lists, made secret whole by the engine): read finds nothing changed, and up moves the inputs to maps with no change", async () => {
    const api = emu.client();
    const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "legacy" });
    const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "production" });
    const list = [{ key: "MODE", value: "calm", scope: "ALL", secret: false }, { key: "TOKEN", value: "t0ken-value", scope: "ALL", secret: true }];
    const legacyInputs = { environmentId: env.id, name: "web", type: "WEB", image: "nginx:1", envVars: list };
    const created = await host.create("Service", legacyInputs);
    // The engine gives the host plain values; the state held the list as one secret, which it unwraps.
    const outs = { ...(created.outs as any), envVars: list };
    expect(await host.read("Service", created.id, outs)).toEqual({ id: created.id, props: created.outs });
    // The program now sends a map: check keeps it a map, and diff against the old outputs finds no change.
    const news = { environmentId: env.id, name: "web", type: "WEB", image: "nginx:1", envVars: { MODE: { value: "calm" }, TOKEN: { value: "t0ken-value", secret: true } } };
    const checked = (await host.check("Service", legacyInputs, news)).inputs as any;
    expect(Object.keys(checked.envVars)).toEqual(["MODE", "TOKEN"]);
    const plainChecked = { ...checked, envVars: { ...checked.envVars, TOKEN: { ...checked.envVars.TOKEN, value: "t0ken-value" } } };
    expect(await host.diff("Service", created.id, outs, plainChecked)).toMatchObject({ changes: false });
    await api.delete(`/v1/projects/${project.id}`);
  });
});
