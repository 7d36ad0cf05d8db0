// Deterministic Idempotency-Keys: the derivation, and what the client and the emulator do with a
// key sent again (by the next `up`, after a crash, or after the object was destroyed).
import { MockAgent } from "undici";
import { canonicalJson, CloudPlatformClient, deriveIdempotencyKey, inOperation, isReplay, type OperationScope } from "../../provider/client";
import { V1Project } from "../../provider/api/projects";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

const ID = "shop/dev/cloudplatform:Project/app";

describe("key derivation", () => {
  test("is stable, and the same for equal bodies whatever their key order", () => {
    const a = deriveIdempotencyKey(ID, "POST", "/v1/workspaces/w/projects", { name: "shop", description: "x" });
    const b = deriveIdempotencyKey(ID, "post", "/v1/workspaces/w/projects", { description: "x", name: "shop", region: undefined });
    expect(a).toBe(b);
    expect(a).toMatch(/^ik1_[A-Za-z0-9_-]{43}$/);
    expect(a.length).toBeLessThanOrEqual(255);
  });

  test("changes with the body, the identity, the route and the generation", () => {
    const base = deriveIdempotencyKey(ID, "POST", "/p", { name: "shop", tags: [1, 2] });
    const others = [
      deriveIdempotencyKey(ID, "POST", "/p", { name: "shop2", tags: [1, 2] }),
      deriveIdempotencyKey(ID, "POST", "/p", { name: "shop", tags: [2, 1] }),
      deriveIdempotencyKey(`${ID}2`, "POST", "/p", { name: "shop", tags: [1, 2] }),
      deriveIdempotencyKey(ID, "POST", "/q", { name: "shop", tags: [1, 2] }),
      deriveIdempotencyKey(ID, "PUT", "/p", { name: "shop", tags: [1, 2] }),
      deriveIdempotencyKey(ID, "POST", "/p", { name: "shop", tags: [1, 2] }, 1),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });

  test("is pinned across releases: a create retried after an upgrade must send the key it sent before", () => {
    const body = { name: "shop", description: "x" };
    expect(deriveIdempotencyKey(ID, "POST", "/v1/workspaces/w/projects", body)).toBe("ik1_cdXqUjnXO-VrBfJuNcpv_VyhYldHbbnujg6UGcDEH-8");
    expect(deriveIdempotencyKey(ID, "post", "/v1/workspaces/w/projects", body, 1)).toBe("ik1_hxE0Raqw1lGuPrExdcP6B1K7lLH2lwSVJlfZI4zaj_0");
  });

  test("a secret changes the key but never appears in it", () => {
    const secret = "s3cr3t-password-value";
    const k1 = deriveIdempotencyKey(ID, "POST", "/p", { name: "db", dbPassword: secret });
    const k2 = deriveIdempotencyKey(ID, "POST", "/p", { name: "db", dbPassword: `${secret}!` });
    expect(k1).not.toBe(k2);
    expect(k1).not.toContain(secret);
    expect(k1).not.toContain(Buffer.from(secret).toString("base64url").slice(0, 8));
  });

  test("canonical JSON sorts keys at every level and drops undefined", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined, x: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":2,"z":1}]},"b":1}');
  });

  test("canonical JSON: undefined reads as null in a list and at the top, keys are escaped, order is by code point", () => {
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson([1, undefined, null])).toBe("[1,null,null]");
    expect(canonicalJson({ 'a"b': 1, B: 2, a: 3 })).toBe('{"B":2,"a":3,"a\\"b":1}');
    expect(canonicalJson({ b: [], a: {} })).toBe('{"a":{},"b":[]}');
    expect(canonicalJson("x")).toBe('"x"');
  });

  test("a replay: the header in any case or as a list; an old createdAt only for a POST, and only a readable one", () => {
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(isReplay("GET", { "idempotent-replayed": "TRUE" }, undefined, now)).toBe(true);
    expect(isReplay("PUT", { "idempotent-replayed": ["true", "false"] }, undefined, now)).toBe(true);
    expect(isReplay("POST", { "idempotent-replayed": "false" }, { createdAt: "2026-01-01T12:00:00Z" }, now)).toBe(false);
    expect(isReplay("post", {}, { createdAt: "2026-01-01T11:00:00Z" }, now)).toBe(true);
    expect(isReplay("POST", {}, { createdAt: Date.parse("2026-01-01T11:00:00Z") }, now)).toBe(false);
    expect(isReplay("POST", {}, { createdAt: "yesterday" }, now)).toBe(false);
    // A minute of clock skew is allowed.
    expect(isReplay("POST", {}, { createdAt: "2026-01-01T11:59:00.001Z" }, now)).toBe(false);
    expect(isReplay("POST", {}, { createdAt: "2026-01-01T11:58:59.999Z" }, now)).toBe(true);
    expect(isReplay("POST", {}, { createdAt: "2026-01-01T11:59:00.000Z" }, now)).toBe(false);
  });

  test("a replay is told by the platform's header, or for a POST by an old createdAt", () => {
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(isReplay("POST", { "idempotent-replayed": "true" }, {}, now)).toBe(true);
    expect(isReplay("POST", {}, { createdAt: "2026-01-01T11:00:00Z" }, now)).toBe(true);
    expect(isReplay("POST", {}, { createdAt: "2026-01-01T11:59:30Z" }, now)).toBe(false);
    expect(isReplay("PATCH", {}, { createdAt: "2020-01-01T00:00:00Z" }, now)).toBe(false);
    expect(isReplay("POST", {}, undefined, now)).toBe(false);
  });
});

describe("against the emulator", () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(async () => emu?.close());
  beforeEach(async () => emu.control("POST", "/reset"));

  const projects = () => `/v1/workspaces/${emu.workspaceId}/projects`;
  const countProjects = async () => (await emu.client().list(projects())).length;

  test("a second create with the same identity and body, in a later run, returns the same object", async () => {
    const api = emu.client();
    const create = (scope: OperationScope) =>
      inOperation(scope, () =>
        api.create(projects(), { name: "shop" }, {
          schema: V1Project, own: true,
          exists: async (p) => !!(await api.get(`/v1/projects/${p.id}`).catch(() => undefined)),
        }));
    const first: OperationScope = { identity: ID };
    const a = await create(first);
    expect(first.created?.id).toBe(a.id);
    const b = await create({ identity: ID });
    expect(b.id).toBe(a.id);
    expect(await countProjects()).toBe(1);
    // Another resource (identity) with the same body is another object.
    const c = await create({ identity: `${ID}-other` });
    expect(c.id).not.toBe(a.id);
    expect(await countProjects()).toBe(2);
    // Outside an operation, keys stay random: each call is a new object.
    await api.create(projects(), { name: "shop" });
    expect(await countProjects()).toBe(3);
  });

  test("a replay of an object destroyed since is noticed and a fresh object is made", async () => {
    const api = emu.client();
    const exists = jest.fn(async (p: V1Project) => !!(await api.get(`/v1/projects/${p.id}`).catch(() => undefined)));
    const create = () => inOperation({ identity: ID }, () => api.create(projects(), { name: "shop" }, { schema: V1Project, exists }));
    const a = await create();
    expect(exists).not.toHaveBeenCalled(); // the happy path costs no extra call
    await api.delete(`/v1/projects/${a.id}`);
    const b = await create();
    expect(b.id).not.toBe(a.id);
    expect(exists).toHaveBeenCalledTimes(1);
    expect(await countProjects()).toBe(1);
    // And the fresh object is itself adopted by the next run.
    const c = await create();
    expect(c.id).toBe(b.id);
    expect(await countProjects()).toBe(1);
  });

  test("an object deleted by hand and made again many times is made fresh each time, never a gone one returned (the drift harness found the third lost)", async () => {
    const api = emu.client();
    const exists = async (p: V1Project) => !!(await api.get(`/v1/projects/${p.id}`).catch(() => undefined));
    const create = () => inOperation({ identity: ID }, () => api.create(projects(), { name: "shop" }, { schema: V1Project, exists }));
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const p = await create();
      expect([i, seen.has(p.id), await exists(p)]).toEqual([i, false, true]);
      seen.add(p.id);
      await api.delete(`/v1/projects/${p.id}`);
    }
    expect(await countProjects()).toBe(0);
  });

  test("a create whose response is lost on every retry is adopted by the next run", async () => {
    const api = emu.client(undefined, { retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 } });
    await emu.control("POST", "/faults", { kind: "drop", method: "POST", path: projects(), count: 3 });
    const create = () => inOperation({ identity: ID }, () => api.create(projects(), { name: "shop" }, { schema: V1Project }));
    await expect(create()).rejects.toThrow();
    expect(await countProjects()).toBe(1);
    const again = await create();
    expect(await countProjects()).toBe(1);
    expect((await emu.client().list<V1Project>(projects()))[0].id).toBe(again.id);
  });

  test("the same key with another body is refused with 409, naming the rule", async () => {
    const api = emu.client();
    const key = deriveIdempotencyKey(ID, "POST", projects(), { name: "shop" });
    await api.request("POST", projects(), { body: { name: "shop" }, idempotencyKey: key });
    const err = await failure(api.request("POST", projects(), { body: { name: "other" }, idempotencyKey: key }));
    expect(err).toMatchObject({ status: 409 });
    expect(String(err.messages)).toContain("different request body");
    expect(await countProjects()).toBe(1);
  });

});

describe("replayed upserts", () => {
  test("a PUT answered with a replay is sent again under the next key", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const keys: string[] = [];
    const pool = agent.get("http://api.test");
    const reply = (replayed: boolean) => (opts: { headers?: unknown }) => {
      keys.push(String((opts.headers as Record<string, string>)["idempotency-key"]));
      return { statusCode: 200, data: { needsRedeploy: false }, responseOptions: { headers: { "content-type": "application/json", ...(replayed ? { "idempotent-replayed": "true" } : {}) } } };
    };
    pool.intercept({ path: "/v1/services/s/secret-files", method: "PUT" }).reply(reply(true));
    pool.intercept({ path: "/v1/services/s/secret-files", method: "PUT" }).reply(reply(false));
    const api = new CloudPlatformClient({ apiKey: `svc_live_${"k".repeat(40)}`, baseUrl: "http://api.test", insecure: true, dispatcher: agent });
    const res = await inOperation({ identity: ID }, () =>
      api.request("PUT", "/v1/services/s/secret-files", { body: { path: "/a", content: "x" }, idempotencyKey: true }));
    expect(res.replayed).toBe(false);
    expect(keys).toEqual([
      deriveIdempotencyKey(ID, "PUT", "/v1/services/s/secret-files", { path: "/a", content: "x" }, 0),
      deriveIdempotencyKey(ID, "PUT", "/v1/services/s/secret-files", { path: "/a", content: "x" }, 1),
    ]);
    await agent.close();
  });
});
