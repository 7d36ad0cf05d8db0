// The platform conventions every route shares, as the emulator serves them: credentials and scopes,
// workspace isolation, request ids, idempotency, cursor pages, limits, error bodies, and the
// project and environment rules.
import {
  AuthenticationError, BadRequestError, ConflictError, NotFoundError, PayloadTooLargeError, PermissionDeniedError,
} from "../../provider/client";
import { REGIONS } from "../../emulator/models/catalogue";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const MISSING = "00000000-0000-4000-8000-000000000000";
const projectsPath = (ws = emu.workspaceId) => `/v1/workspaces/${ws}/projects`;

interface Raw {
  status: number;
  headers: Headers;
  body: any;
}
/** A request with exactly the headers given; `key` null sends no Authorization. */
async function raw(method: string, path: string, opts: { key?: string | null; headers?: Record<string, string>; body?: unknown } = {}): Promise<Raw> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? emu.apiKey : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(emu.baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}


async function makeProject(name = "conv", key = emu.apiKey): Promise<{ id: string; envId: string }> {
  const c = emu.client(key);
  const p = await c.create<any>(projectsPath(), { name });
  const env = await c.create<any>(`/v1/projects/${p.id}/environments`, { name: "dev" });
  return { id: p.id, envId: env.id };
}

describe("credentials", () => {
  test("the bearer header is the only transport; a key in a cookie is refused", async () => {
    const cookie = await raw("GET", "/v1/me", { key: null, headers: { cookie: `apiKey=${emu.apiKey}; session=${emu.apiKey}` } });
    expect(cookie.status).toBe(401);
    expect(cookie.body).toEqual({ statusCode: 401, message: expect.stringMatching(/cookie/i), error: "Unauthorized" });
    expect(JSON.stringify(cookie.body)).not.toContain(emu.apiKey);

    const none = await raw("GET", "/v1/me", { key: null });
    expect(none.status).toBe(401);
    expect(none.body.message).toMatch(/Authorization: Bearer/);
    expect((await raw("GET", "/v1/me")).status).toBe(200);
  });

  test("a malformed header or an unknown key is 401", async () => {
    for (const authorization of [`Basic ${emu.apiKey}`, emu.apiKey, `Bearer`, `Bearer ${emu.apiKey} extra`, `Token ${emu.apiKey}`]) {
      const r = await raw("GET", "/v1/me", { key: null, headers: { authorization } });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe("Unauthorized");
    }
    for (const key of [`svc_live_${"Z".repeat(40)}`, "nonsense", `${emu.apiKey}x`]) {
      const r = await raw("GET", "/v1/me", { key });
      expect(r.status).toBe(401);
      expect(r.body.message).toBe("Invalid or revoked API key");
    }
    const err = await failure(emu.client(`svc_live_${"Q".repeat(40)}`).get("/v1/me"));
    expect(err).toBeInstanceOf(AuthenticationError);
  });

  test("the scheme is case-insensitive", async () => {
    expect((await raw("GET", "/v1/me", { key: null, headers: { authorization: `bearer ${emu.apiKey}` } })).status).toBe(200);
  });
});

describe("scopes", () => {
  test("a READ-only key cannot write: the 403 names WRITE", async () => {
    const err = await failure(emu.client(emu.keys.readPlatform).create(projectsPath(), { name: "x" }));
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err.messages).toMatch(/Missing scope WRITE\b/);
    expect(err.messages).toContain("WRITE + PLATFORM_API");
    // but it can read
    await expect(emu.client(emu.keys.readPlatform).get("/v1/me")).resolves.toBeDefined();
    expect(await emu.leftovers()).toEqual({});
  });

  test("a key without PLATFORM_API cannot reach platform routes: the 403 names it", async () => {
    for (const key of [emu.keys.sendOnly, emu.keys.deploysOnly]) {
      const err = await failure(emu.client(key).get("/v1/me"));
      expect(err).toBeInstanceOf(PermissionDeniedError);
      expect(err.messages).toMatch(/Missing scope PLATFORM_API\b/);
    }
  });

  test("mail and sandbox keys are refused on platform routes, with the scopes named", async () => {
    for (const key of [emu.keys.mail, emu.keys.sandbox]) {
      const read = await failure(emu.client(key).get(projectsPath()));
      expect(read).toBeInstanceOf(PermissionDeniedError);
      expect(read.messages).toContain("READ + PLATFORM_API");
      const write = await failure(emu.client(key).create(projectsPath(), { name: "x" }));
      expect(write.status).toBe(403);
      expect(write.messages).toContain("WRITE + PLATFORM_API");
    }
    expect(await emu.leftovers()).toEqual({});
  });

  test("deletes of projects and environments need the ADMIN role", async () => {
    const { id, envId } = await makeProject();
    const member = emu.client(emu.keys.member);
    // A plain member can read and write...
    await expect(member.patch(`/v1/projects/${id}`, { description: "by a member" })).resolves.toBeDefined();
    // ...but not delete.
    for (const path of [`/v1/environments/${envId}`, `/v1/projects/${id}`]) {
      const err = await failure(member.delete(path));
      expect(err).toBeInstanceOf(PermissionDeniedError);
      expect(err.messages).toMatch(/ADMIN/);
    }
    expect(await emu.leftovers()).toEqual({ projects: 1, environments: 1 });
    const owner = emu.client();
    await owner.delete(`/v1/environments/${envId}`);
    await owner.delete(`/v1/projects/${id}`);
    expect(await emu.leftovers()).toEqual({});
  });

  test("a read-only team member cannot delete either", async () => {
    const { id } = await makeProject();
    const err = await failure(emu.client(emu.keys.readOnly).delete(`/v1/projects/${id}`));
    expect(err.status).toBe(403);
  });
});

describe("workspace isolation", () => {
  /** The message with ids blanked, so "not yours" and "not there" compare equal. */
  const shape = (e: any) => ({ status: e.status, cls: e.constructor.name, body: JSON.stringify(e.body).replace(/[0-9a-f-]{36}/g, "ID") });

  test("another workspace's project, environment and workspace are 404, exactly like missing ones", async () => {
    const { id, envId } = await makeProject();
    const stranger = emu.client(emu.keys.otherWorkspace);
    const pairs: [string, string][] = [
      [`/v1/projects/${id}`, `/v1/projects/${MISSING}`],
      [`/v1/projects/${id}/environments`, `/v1/projects/${MISSING}/environments`],
      [`/v1/environments/${envId}`, `/v1/environments/${MISSING}`],
      [`/v1/workspaces/${emu.workspaceId}`, `/v1/workspaces/${MISSING}`],
      [`/v1/workspaces/${emu.workspaceId}/members`, `/v1/workspaces/${MISSING}/members`],
      [projectsPath(), projectsPath(MISSING)],
    ];
    for (const [theirs, missing] of pairs) {
      const a = await failure(stranger.get(theirs));
      const b = await failure(stranger.get(missing));
      expect(a).toBeInstanceOf(NotFoundError);
      expect(shape(a)).toEqual(shape(b));
    }
    // Writes are refused the same way and change nothing.
    expect(await failure(stranger.patch(`/v1/projects/${id}`, { name: "stolen" }))).toBeInstanceOf(NotFoundError);
    expect(await failure(stranger.delete(`/v1/projects/${id}`))).toBeInstanceOf(NotFoundError);
    expect(await failure(stranger.delete(`/v1/environments/${envId}`))).toBeInstanceOf(NotFoundError);
    expect(await failure(stranger.create(`/v1/projects/${id}/environments`, { name: "x" }))).toBeInstanceOf(NotFoundError);
    expect(await failure(stranger.create(projectsPath(), { name: "x" }))).toBeInstanceOf(NotFoundError);
    const mine = await emu.client().get<any>(`/v1/projects/${id}`);
    expect(mine.name).toBe("conv");
    expect(mine.environments).toHaveLength(1);
  });

  test("a key pinned to a workspace does not see the owner's other workspaces", async () => {
    const all = await emu.client(emu.keys.account).list<any>("/v1/workspaces");
    const staging = all.find((w) => w.id !== emu.workspaceId);
    expect(staging).toBeDefined();
    expect(await failure(emu.client().get(`/v1/workspaces/${staging.id}`))).toBeInstanceOf(NotFoundError);
  });
});

describe("request ids", () => {
  test("a valid id is echoed, on success and on error", async () => {
    for (const id of ["abc", "A-z_0.9:x", "x".repeat(64)]) {
      expect((await raw("GET", "/v1/me", { headers: { "x-request-id": id } })).headers.get("x-request-id")).toBe(id);
    }
    const err = await raw("GET", "/v1/me", { key: null, headers: { "x-request-id": "err-1" } });
    expect(err.status).toBe(401);
    expect(err.headers.get("x-request-id")).toBe("err-1");
    const notFound = await raw("GET", "/v1/nowhere", { headers: { "x-request-id": "nf-1" } });
    expect(notFound.headers.get("x-request-id")).toBe("nf-1");
  });

  test("an invalid or too long id is replaced, and the request still succeeds", async () => {
    for (const id of ["has space", "x".repeat(65), "semi;colon", "slash/y", "quote\"d"]) {
      const r = await raw("GET", "/v1/me", { headers: { "x-request-id": id } });
      expect(r.status).toBe(200);
      const echoed = r.headers.get("x-request-id");
      expect(echoed).not.toBe(id);
      expect(echoed).toMatch(/^req_[0-9a-f]{32}$/);
    }
  });

  test("without one, every response still gets a fresh id", async () => {
    const a = (await raw("GET", "/v1/me")).headers.get("x-request-id");
    const b = (await raw("GET", "/v1/me")).headers.get("x-request-id");
    expect(a).toMatch(/^req_/);
    expect(b).toMatch(/^req_/);
    expect(a).not.toBe(b);
  });
});

describe("idempotency", () => {
  const post = (key: string, body: unknown, opts: { path?: string; apiKey?: string } = {}) =>
    raw("POST", opts.path ?? projectsPath(), { key: opts.apiKey, headers: { "idempotency-key": key }, body });

  test("the same key and body replays the first response and acts once", async () => {
    const first = await post("k-1", { name: "idem" });
    const second = await post("k-1", { name: "idem" });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect((await emu.client().list(projectsPath())).length).toBe(1);
  });

  test("the same key with another body is 409 and acts not at all", async () => {
    await post("k-2", { name: "one" });
    const clash = await post("k-2", { name: "two" });
    expect(clash.status).toBe(409);
    expect(clash.body.message).toMatch(/Idempotency-Key/);
    expect((await emu.client().list<any>(projectsPath())).map((p) => p.name)).toEqual(["one"]);
  });

  test("keys are not shared across routes or credentials", async () => {
    const a = await post("shared", { name: "dev" });
    const b = await post("shared", { name: "dev" }, { path: `/v1/projects/${a.body.id}/environments` });
    expect(b.status).toBe(201);
    expect(b.body.projectId).toBe(a.body.id);
    const c = await post("shared", { name: "dev" }, { apiKey: emu.keys.account });
    expect(c.status).toBe(201);
    expect(c.body.id).not.toBe(a.body.id);
    expect((await emu.client().list(projectsPath())).length).toBe(2);
  });

  test("a key is remembered 24 hours, then acts anew", async () => {
    const first = await post("day", { name: "daily" });
    await emu.control("POST", "/time", { advanceMs: 23 * 3600_000 });
    expect((await post("day", { name: "daily" })).body.id).toBe(first.body.id);
    await emu.control("POST", "/time", { advanceMs: 3600_000 + 1 });
    const later = await post("day", { name: "daily" });
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    // After expiry another body is accepted under the same key too.
    await emu.control("POST", "/time", { advanceMs: 24 * 3600_000 + 1 });
    expect((await post("day", { name: "other" })).status).toBe(201);
    expect((await emu.client().list(projectsPath())).length).toBe(3);
  });

  test("an invalid key is 400", async () => {
    for (const key of ["has space", "x".repeat(256), "tab\there"]) {
      const r = await post(key, { name: "bad-key" });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/Idempotency-Key/);
    }
    expect((await post("x".repeat(255), { name: "ok" })).status).toBe(201);
    expect((await post("!~#$%&'*+^`|", { name: "ok2" })).status).toBe(201);
    expect((await emu.client().list(projectsPath())).length).toBe(2);
  });

  test("a refused request is replayed as refused, and a server error is not remembered", async () => {
    expect((await post("val", { name: "-bad" })).status).toBe(400);
    expect((await post("val", { name: "-bad" })).status).toBe(400);
    await emu.control("POST", "/faults", { kind: "status", status: 500, method: "POST", count: 1 });
    expect((await post("srv", { name: "later" })).status).toBe(500);
    expect((await post("srv", { name: "later" })).status).toBe(201);
  });
});

describe("cursor pages", () => {
  beforeEach(async () => {
    const c = emu.client();
    // 105 projects, in parallel batches to keep the test quick.
    for (let i = 0; i < 105; i += 35) {
      await Promise.all(Array.from({ length: 35 }, (_, j) => c.create(projectsPath(), { name: `p-${i + j}` })));
    }
  });

  test("default 20, limit honoured, clamped to 100", async () => {
    expect((await raw("GET", projectsPath())).body.data).toHaveLength(20);
    expect((await raw("GET", `${projectsPath()}?limit=7`)).body.data).toHaveLength(7);
    const big = await raw("GET", `${projectsPath()}?limit=500`);
    expect(big.status).toBe(200);
    expect(big.body.data).toHaveLength(100);
    expect(typeof big.body.nextCursor).toBe("string");
    const rest = await raw("GET", `${projectsPath()}?cursor=${big.body.nextCursor}`);
    expect(rest.body.data).toHaveLength(5);
    expect(rest.body.nextCursor).toBeNull();
  });

  test("a bad limit is 400", async () => {
    for (const limit of ["0", "-1", "abc", "2.5"]) {
      const r = await raw("GET", `${projectsPath()}?limit=${limit}`);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body.message)).toContain("limit");
    }
  });

  test("a bad cursor is 400", async () => {
    const forged = ['{}', '{"o":-5,"l":2}', '{"o":0,"l":0}', '{"o":0,"l":-3}', '{"o":0,"l":1000}', '{"o":1.5,"l":2}'];
    for (const cursor of ["garbage", ...forged.map((f) => Buffer.from(f).toString("base64url"))]) {
      const r = await raw("GET", `${projectsPath()}?cursor=${cursor}`);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body.message)).toContain("cursor");
    }
    expect(await failure(emu.client().get(projectsPath(), { query: { cursor: "nope" } }))).toBeInstanceOf(BadRequestError);
  });

  test("limit is ignored when a cursor is given", async () => {
    const first = await raw("GET", `${projectsPath()}?limit=10`);
    const next = await raw("GET", `${projectsPath()}?cursor=${first.body.nextCursor}&limit=abc`);
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(10);
    const same = await raw("GET", `${projectsPath()}?cursor=${first.body.nextCursor}&limit=3`);
    expect(same.body.data.map((p: any) => p.id)).toEqual(next.body.data.map((p: any) => p.id));
    // Pages do not overlap.
    const ids = new Set([...first.body.data, ...next.body.data].map((p: any) => p.id));
    expect(ids.size).toBe(20);
  });
});

describe("limits and error bodies", () => {
  test("a body over the limit is 413", async () => {
    const huge = { name: "big", description: "x".repeat(11 * 1024 * 1024) };
    const err = await failure(emu.client(undefined, { retry: { maxRetries: 0 } }).post(projectsPath(), huge));
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err.body).toMatchObject({ statusCode: 413, error: "Payload Too Large" });
    expect(await emu.leftovers()).toEqual({});
  });

  test("an unknown route is 404 with the standard body", async () => {
    const r = await raw("GET", "/v1/no-such-thing?x=1");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ statusCode: 404, message: "Route GET /v1/no-such-thing not found", error: "Not Found" });
    expect(r.headers.get("content-type")).toMatch(/application\/json/);
    const del = await raw("DELETE", "/v2/projects/x");
    expect(del.body).toEqual({ statusCode: 404, message: "Route DELETE /v2/projects/x not found", error: "Not Found" });
  });

  test("invalid JSON is 400 with the standard body", async () => {
    const r = await raw("POST", projectsPath(), { body: "{nope" });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ statusCode: 400, message: expect.stringContaining("JSON"), error: "Bad Request" });
  });

  test("validation failures name each field", async () => {
    const r = await raw("POST", projectsPath(), { body: { name: "", displayName: "y".repeat(200) } });
    expect(r.status).toBe(400);
    expect(r.body.message).toEqual([expect.stringMatching(/^name: /), expect.stringMatching(/^displayName: .*128/)]);
  });
});

describe("identity routes", () => {
  test("GET /v1/me is the key's owner", async () => {
    const me = await emu.client().get<any>("/v1/me");
    expect(me).toMatchObject({ email: "owner@example.test", firstName: "Ada", lastName: null });
    expect(me.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof me.createdAt).toBe("string");
    expect((await emu.client(emu.keys.member).get<any>("/v1/me")).email).toBe("dev@example.test");
  });

  test("an account key sees both of its owner's workspaces; a workspace key sees one", async () => {
    const all = await emu.client(emu.keys.account).list<any>("/v1/workspaces");
    expect(all.map((w) => w.name).sort()).toEqual(["Acme", "Acme Staging"]);
    for (const w of all) expect(w).toMatchObject({ role: "OWNER", defaultRegion: expect.any(String) });
    const one = await emu.client().list<any>("/v1/workspaces");
    expect(one.map((w) => w.id)).toEqual([emu.workspaceId]);
    expect((await emu.client(emu.keys.otherWorkspace).list<any>("/v1/workspaces")).map((w) => w.id)).toEqual([emu.otherWorkspaceId]);
    const ws = await emu.client().get<any>(`/v1/workspaces/${emu.workspaceId}`);
    expect(ws).toMatchObject({ id: emu.workspaceId, name: "Acme", role: "OWNER" });
    expect((await emu.client(emu.keys.member).get<any>(`/v1/workspaces/${emu.workspaceId}`)).role).toBe("MEMBER");
  });

  test("members of a workspace, with roles and the read-only team role", async () => {
    const members = await emu.client().list<any>(`/v1/workspaces/${emu.workspaceId}/members`);
    const byEmail = Object.fromEntries(members.map((m) => [m.user.email, m]));
    expect(Object.keys(byEmail).sort()).toEqual(["dev@example.test", "owner@example.test", "viewer@example.test"]);
    expect(byEmail["owner@example.test"]).toMatchObject({ role: "OWNER", teamRoleId: null });
    expect(byEmail["dev@example.test"]).toMatchObject({ role: "MEMBER", teamRoleId: null });
    expect(byEmail["viewer@example.test"]).toMatchObject({ role: "MEMBER", teamRoleId: expect.any(String) });
    // Member rows never carry key material.
    expect(JSON.stringify(members)).not.toMatch(/svc_live_|token/);
  });
});

describe("projects and environments", () => {
  test("environment names are unique per project, ignoring case", async () => {
    const c = emu.client();
    const a = await c.create<any>(projectsPath(), { name: "a" });
    const b = await c.create<any>(projectsPath(), { name: "b" });
    await c.create(`/v1/projects/${a.id}/environments`, { name: "Staging" });
    for (const name of ["staging", "STAGING", "Staging"]) {
      const err = await failure(c.create(`/v1/projects/${a.id}/environments`, { name }));
      expect(err).toBeInstanceOf(ConflictError);
      expect(err.messages).toContain("Staging");
    }
    await expect(c.create(`/v1/projects/${b.id}/environments`, { name: "staging" })).resolves.toBeDefined();
  });

  test("an unknown region is 400 listing the known keys", async () => {
    const err = await failure(emu.client().create(projectsPath(), { name: "r", region: "mars-north-1" }));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.messages).toContain("mars-north-1");
    for (const r of REGIONS) expect(err.messages).toContain(r.region);
    expect(await emu.leftovers()).toEqual({});
    const ok = await emu.client().create<any>(projectsPath(), { name: "r", region: REGIONS[REGIONS.length - 1].region });
    expect(ok.defaultRegion).toBe(REGIONS[REGIONS.length - 1].region);
    const dflt = await emu.client().create<any>(projectsPath(), { name: "r2" });
    expect(dflt.defaultRegion).toBe(REGIONS.find((r) => r.isDefault)!.region);
  });

  test("an environment's kind comes from its name in any case", async () => {
    const c = emu.client();
    const p = await c.create<any>(projectsPath(), { name: "kinds" });
    const cases: [string, string | null][] = [
      ["prod", "PROD"], ["Uat", "UAT"], ["DEV", "DEV"], ["production", null], ["dev-2", null], ["qa", null],
    ];
    for (const [name, kind] of cases) {
      const env = await c.create<any>(`/v1/projects/${p.id}/environments`, { name });
      expect(env.kind).toBe(kind);
      expect(env.project).toMatchObject({ id: p.id, workspaceId: emu.workspaceId, name: "kinds" });
      expect((await c.get<any>(`/v1/environments/${env.id}`)).kind).toBe(kind);
    }
    const listed = await c.list<any>(`/v1/projects/${p.id}/environments`);
    expect(listed.map((e) => e.name).sort()).toEqual(cases.map(([n]) => n).sort());
  });

  test("deleting a project deletes its environments", async () => {
    const c = emu.client();
    const { id, envId } = await makeProject("cascade");
    await c.create(`/v1/projects/${id}/environments`, { name: "prod" });
    const keep = await makeProject("keep");
    await c.delete(`/v1/projects/${id}`);
    expect(await failure(c.get(`/v1/projects/${id}`))).toBeInstanceOf(NotFoundError);
    expect(await failure(c.get(`/v1/environments/${envId}`))).toBeInstanceOf(NotFoundError);
    expect(await emu.leftovers()).toMatchObject({ projects: 1, environments: 1 });
    expect((await c.get<any>(`/v1/projects/${keep.id}`)).environments).toHaveLength(1);
  });

  test("a project read lists its environments; a list leaves them out", async () => {
    const c = emu.client();
    const { id } = await makeProject("shape");
    expect((await c.get<any>(`/v1/projects/${id}`)).environments).toHaveLength(1);
    const [listed] = await c.list<any>(projectsPath());
    expect(listed.environments).toBeUndefined();
  });
});
