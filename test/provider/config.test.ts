// Provider configuration: stack config before CLOUDPLATFORM_* variables, and how the workspace is
// chosen when the program does not name one.
import { inspect } from "node:util";
import { ConfigurationError, InvalidApiKeyError } from "../../provider/client";
import { CONFIG_KEYS, makeContext, resolveConfig } from "../../provider/config";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const FAST = { retry: { baseDelayMs: 5, maxDelayMs: 20 } };
const workspaceLookups = async () => (await emu.control("GET", "/counters"))["GET /v1/workspaces"]?.count ?? 0;

describe("resolveConfig", () => {
  const env = { CLOUDPLATFORM_API_KEY: "env-key", CLOUDPLATFORM_BASE_URL: "http://env", CLOUDPLATFORM_WORKSPACE_ID: "env-ws" };

  test("stack config wins over the environment", () => {
    const cfg: Record<string, string> = { "cloudplatform:apiKey": "cfg-key", "cloudplatform:baseUrl": "http://cfg", "cloudplatform:workspaceId": "cfg-ws" };
    expect(resolveConfig((k) => cfg[k], env)).toEqual({ apiKey: "cfg-key", baseUrl: "http://cfg", workspaceId: "cfg-ws" });
  });

  test("the environment fills what config leaves unset", () => {
    const cfg: Record<string, string> = { "cloudplatform:baseUrl": "http://cfg" };
    expect(resolveConfig((k) => cfg[k], env)).toEqual({ apiKey: "env-key", baseUrl: "http://cfg", workspaceId: "env-ws" });
  });

  test("nothing set, or set empty, is undefined", () => {
    expect(resolveConfig(() => undefined, {})).toEqual({ apiKey: undefined, baseUrl: undefined, workspaceId: undefined });
    expect(resolveConfig(() => undefined, { CLOUDPLATFORM_API_KEY: "" }).apiKey).toBeUndefined();
  });

  test("the documented names", () => {
    expect(CONFIG_KEYS.apiKey).toEqual({ key: "cloudplatform:apiKey", env: "CLOUDPLATFORM_API_KEY" });
    expect(CONFIG_KEYS.baseUrl).toEqual({ key: "cloudplatform:baseUrl", env: "CLOUDPLATFORM_BASE_URL" });
    expect(CONFIG_KEYS.workspaceId).toEqual({ key: "cloudplatform:workspaceId", env: "CLOUDPLATFORM_WORKSPACE_ID" });
  });
});

describe("makeContext", () => {
  test("with no key: a clear error naming both ways to set one", async () => {
    const ctx = makeContext({ baseUrl: emu.baseUrl });
    expect(() => ctx.client).toThrow(ConfigurationError);
    expect(() => ctx.client).toThrow(/pulumi config set --secret cloudplatform:apiKey.*CLOUDPLATFORM_API_KEY/);
    const err = await failure(ctx.workspaceId());
    expect(err).toBeInstanceOf(ConfigurationError);
  });

  test("a malformed key fails on first use, without showing it", async () => {
    const key = `svc_live_${"x".repeat(10)}`;
    const ctx = makeContext({ apiKey: key, baseUrl: emu.baseUrl });
    let err: unknown;
    try {
      void ctx.client;
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidApiKeyError);
    expect(inspect(err)).not.toContain(key);
  });

  test("with no base URL: a clear error", () => {
    const ctx = makeContext({ apiKey: emu.apiKey });
    expect(() => ctx.client).toThrow(/CLOUDPLATFORM_BASE_URL/);
  });

  test("the only workspace a key sees is chosen, looked up once", async () => {
    const ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl }, FAST);
    await expect(ctx.workspaceId()).resolves.toBe(emu.workspaceId);
    await expect(ctx.workspaceId()).resolves.toBe(emu.workspaceId);
    expect(await workspaceLookups()).toBe(1);
    expect(ctx.client).toBe(ctx.client);
  });

  test("a configured workspace is used without asking the API", async () => {
    const ctx = makeContext({ apiKey: emu.keys.account, baseUrl: emu.baseUrl, workspaceId: "ws-from-config" }, FAST);
    await expect(ctx.workspaceId()).resolves.toBe("ws-from-config");
    expect(await workspaceLookups()).toBe(0);
  });

  test("a key that sees several workspaces: an error listing them and saying what to set", async () => {
    const all = await emu.client(emu.keys.account).list<{ id: string; name: string }>("/v1/workspaces");
    expect(all).toHaveLength(2);
    await emu.control("DELETE", "/counters");
    const ctx = makeContext({ apiKey: emu.keys.account, baseUrl: emu.baseUrl }, FAST);
    const err = await failure(ctx.workspaceId());
    expect(err).toBeInstanceOf(ConfigurationError);
    expect(err.message).toContain("2 workspaces");
    for (const w of all) expect(err.message).toContain(`${w.name} (${w.id})`);
    expect(err.message).toContain("cloudplatform:workspaceId");
    expect(err.message).toContain("CLOUDPLATFORM_WORKSPACE_ID");
    expect(err.message).not.toContain(emu.keys.account);
    // A failed lookup is not cached: the next call asks again.
    await failure(ctx.workspaceId());
    expect(await workspaceLookups()).toBe(2);
  });

  test("a lookup that fails for a transient reason is retried on the next call", async () => {
    await emu.control("POST", "/faults", { kind: "status", status: 500, path: "/v1/workspaces", count: 1 });
    const ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl }, { retry: { maxRetries: 0 } });
    await expect(ctx.workspaceId()).rejects.toMatchObject({ status: 500 });
    await expect(ctx.workspaceId()).resolves.toBe(emu.workspaceId);
  });

  test("log goes to the given sink", () => {
    const lines: string[] = [];
    makeContext({}, {}, (m) => lines.push(m)).log("hello");
    expect(lines).toEqual(["hello"]);
  });
});
