// The emulator's test-only control API: faults, counters, reset, time, and state kept in a directory.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readState } from "../../emulator/journal";
import { IDENTITY_TABLES } from "../../emulator/seed-tables";
import { InternalServerError, RateLimitError } from "../../provider/client";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const NO_RETRY = { retry: { maxRetries: 0 } };
const fault = (rule: Record<string, unknown>) => emu.control("POST", "/faults", rule);
const projectsPath = () => `/v1/workspaces/${emu.workspaceId}/projects`;

/** Statuses of `n` GETs of `path` without retries. */
async function statuses(path: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await fetch(emu.baseUrl + path, { headers: { authorization: `Bearer ${emu.apiKey}` } })).status);
  return out;
}

describe("faults", () => {
  test("a status for the next N matching requests, then normal service", async () => {
    const rule = await fault({ kind: "status", status: 503, path: "/v1/me", count: 2 });
    expect(rule).toMatchObject({ id: expect.any(String), kind: "status", status: 503, count: 2 });
    expect(await statuses("/v1/me", 4)).toEqual([503, 503, 200, 200]);
    const { data } = await emu.control("GET", "/faults");
    expect(data).toEqual([expect.objectContaining({ id: rule.id, count: 0 })]);
  });

  test("the fault body is the standard error body", async () => {
    await fault({ kind: "status", status: 502, path: "/v1/me", count: 1 });
    const res = await fetch(`${emu.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
    expect(res.status).toBe(502);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await res.json()).toEqual({ statusCode: 502, message: "Injected fault", error: "Bad Gateway" });
  });

  test("rate 0 never fires, rate 1 always does, 0.5 about half the time", async () => {
    const rule = await fault({ kind: "status", status: 500, path: "/v1/me", rate: 0 });
    expect(await statuses("/v1/me", 10)).toEqual(Array(10).fill(200));
    await emu.control("DELETE", "/faults");
    await fault({ kind: "status", status: 500, path: "/v1/me", rate: 1 });
    expect(await statuses("/v1/me", 5)).toEqual(Array(5).fill(500));
    await emu.control("DELETE", "/faults");
    expect((await emu.control("GET", "/faults")).data).toEqual([]);
    await fault({ kind: "status", status: 500, path: "/v1/me", rate: 0.5 });
    const half = (await statuses("/v1/me", 200)).filter((s) => s === 500).length;
    // Binomial(200, 0.5): outside 50..150 is far beyond any plausible run.
    expect(half).toBeGreaterThan(50);
    expect(half).toBeLessThan(150);
    expect(rule.rate).toBe(0);
  });

  test("rate and count together: at most N, each with that chance", async () => {
    await fault({ kind: "status", status: 500, path: "/v1/me", rate: 1, count: 3 });
    expect(await statuses("/v1/me", 5)).toEqual([500, 500, 500, 200, 200]);
  });

  test("rules match by method, path prefix and path regex; the control API is never faulted", async () => {
    const c = emu.client(undefined, NO_RETRY);
    const p = await c.create<any>(projectsPath(), { name: "target" });
    await fault({ kind: "status", status: 500, method: "PATCH" });
    await fault({ kind: "status", status: 502, path: "/v1/workspaces/" });
    await fault({ kind: "status", status: 504, pathRegex: "^/v1/projects/[^/]+/environments$" });
    await fault({ kind: "status", status: 500 }); // any route: only the control API stays up
    await expect(emu.control("GET", "/health")).resolves.toEqual({ ok: true });
    await emu.control("DELETE", "/faults");

    await fault({ kind: "status", status: 500, method: "patch" });
    await fault({ kind: "status", status: 502, path: "/v1/workspaces/" });
    await fault({ kind: "status", status: 504, pathRegex: "^/v1/projects/[^/]+/environments$" });
    expect((await c.patch(`/v1/projects/${p.id}`, {}).catch((e: any) => e) as any).status).toBe(500);
    expect((await c.get(projectsPath()).catch((e: any) => e) as any).status).toBe(502);
    expect((await c.get(`/v1/projects/${p.id}/environments`).catch((e: any) => e) as any).status).toBe(504);
    // Neither a GET of the project nor /v1/me matches any rule.
    await expect(c.get(`/v1/projects/${p.id}`)).resolves.toMatchObject({ id: p.id });
    await expect(c.get("/v1/me")).resolves.toBeDefined();
  });

  test("429 carries Retry-After in seconds or as an HTTP date", async () => {
    await fault({ kind: "status", status: 429, retryAfterSeconds: 3, path: "/v1/me", count: 1 });
    await fault({ kind: "status", status: 429, retryAfter: "date", retryAfterSeconds: 60, path: "/v1/me", count: 1 });
    await fault({ kind: "status", status: 429, path: "/v1/me", count: 1 });
    const get = () => fetch(`${emu.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
    const a = await get();
    expect(a.status).toBe(429);
    expect(a.headers.get("retry-after")).toBe("3");
    const b = await get();
    const at = Date.parse(b.headers.get("retry-after")!);
    expect(b.headers.get("retry-after")).toMatch(/GMT$/);
    expect(at - Date.now()).toBeGreaterThan(55_000);
    expect(at - Date.now()).toBeLessThanOrEqual(60_000);
    // Without a hint a 429 still says when to come back.
    expect((await get()).headers.get("retry-after")).toBe("1");
    // The rules are used up.
    expect((await get()).status).toBe(200);
  });

  // Which requests a rule delayed is read from the rule's own count, not from how long an
  // undelayed request took (a busy machine makes any request slow).
  test("latency delays matching requests only", async () => {
    const rule = await fault({ kind: "latency", latencyMs: 400, path: "/v1/me", count: 1 });
    const left = async () => (await emu.control("GET", "/faults")).data.find((r: { id: string }) => r.id === rule.id).count;
    const c = emu.client();
    await c.get("/v1/workspaces");
    expect(await left()).toBe(1);
    const t0 = performance.now();
    await c.get("/v1/me");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(395);
    expect(await left()).toBe(0);
  });

  test("drop commits, then closes the connection without an answer", async () => {
    await fault({ kind: "drop", method: "POST", count: 1 });
    const err = await emu.client(undefined, NO_RETRY).post(projectsPath(), { name: "dropped" }).then(() => undefined, (e) => e);
    expect(err?.name).toBe("ConnectionError");
    expect((await emu.client().list<any>(projectsPath())).map((p) => p.name)).toEqual(["dropped"]);
  });

  test("an invalid rule is 400", async () => {
    for (const rule of [{ kind: "explode" }, { kind: "status", status: 200 }, { kind: "status", rate: 2 }, { kind: "latency", latencyMs: -1 }, { kind: "status", count: 0 }]) {
      const res = await fetch(`${emu.baseUrl}/_emulator/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rule) });
      expect(res.status).toBe(400);
    }
    expect((await emu.control("GET", "/faults")).data).toEqual([]);
  });

  test("client errors carry the injected status", async () => {
    await fault({ kind: "status", status: 429, retryAfterSeconds: 0, path: "/v1/me", count: 1 });
    await fault({ kind: "status", status: 500, path: "/v1/workspaces", count: 1 });
    const c = emu.client(undefined, NO_RETRY);
    expect(await c.get("/v1/me").catch((e: unknown): any => e)).toBeInstanceOf(RateLimitError);
    expect(await c.get("/v1/workspaces").catch((e: unknown): any => e)).toBeInstanceOf(InternalServerError);
  });
});

describe("counters", () => {
  test("count per route pattern and status; the control API is not counted", async () => {
    const c = emu.client(undefined, NO_RETRY);
    const p = await c.create<any>(projectsPath(), { name: "counted" });
    await c.get(`/v1/projects/${p.id}`);
    await c.get(`/v1/projects/${p.id}`);
    await c.get("/v1/projects/missing").catch(() => undefined);
    await fetch(`${emu.baseUrl}/v1/nowhere`);
    await emu.control("GET", "/health");
    const counters = await emu.control("GET", "/counters");
    expect(counters).toEqual({
      "POST /v1/workspaces/:workspaceId/projects": { count: 1, byStatus: { 201: 1 } },
      "GET /v1/projects/:projectId": { count: 3, byStatus: { 200: 2, 404: 1 } },
      // Unknown routes are counted together.
      "GET unmatched": { count: 1, byStatus: { 404: 1 } },
    });
    await emu.control("DELETE", "/counters");
    expect(await emu.control("GET", "/counters")).toEqual({});
  });
});

describe("reset and time", () => {
  test("reset forgets what users made and the faults, counters and clock; seeded keys stay valid", async () => {
    const c = emu.client(undefined, NO_RETRY);
    const p = await c.create<any>(projectsPath(), { name: "gone" });
    await c.create(`/v1/projects/${p.id}/environments`, { name: "dev" });
    await fault({ kind: "status", status: 500, path: "/v1/workspaces" });
    await emu.control("POST", "/time", { advanceMs: 86_400_000 });
    expect(await emu.leftovers()).toEqual({ projects: 1, environments: 1 });

    await emu.control("POST", "/reset");
    expect(await emu.leftovers()).toEqual({});
    expect((await emu.control("GET", "/faults")).data).toEqual([]);
    expect(await emu.control("GET", "/counters")).toEqual({});
    expect(Math.abs(Date.parse((await emu.control("GET", "/time")).now) - Date.now())).toBeLessThan(5_000);
    for (const key of [emu.apiKey, emu.keys.account, emu.keys.member, emu.keys.otherWorkspace]) {
      await expect(emu.client(key).get("/v1/me")).resolves.toBeDefined();
    }
    expect((await c.list(projectsPath())).length).toBe(0);
    // An idempotency key used before the reset acts anew.
    const again = await c.create<any>(projectsPath(), { name: "gone" });
    expect(again.id).not.toBe(p.id);
  });

  test("time can be advanced, set and reset; new objects are stamped with it", async () => {
    const before = Date.parse((await emu.control("GET", "/time")).now);
    const { now } = await emu.control("POST", "/time", { advanceMs: 3_600_000 });
    expect(Date.parse(now) - before).toBeGreaterThanOrEqual(3_600_000);
    expect(Date.parse(now) - before).toBeLessThan(3_600_000 + 5_000);
    const p = await emu.client().create<any>(projectsPath(), { name: "future" });
    expect(Date.parse(p.createdAt) - Date.now()).toBeGreaterThan(3_590_000);

    const set = await emu.control("POST", "/time", { now: "2030-01-02T03:04:05.000Z" });
    expect(Date.parse(set.now) - Date.parse("2030-01-02T03:04:05.000Z")).toBeLessThan(1_000);
    const reset = await emu.control("POST", "/time", { reset: true });
    expect(Math.abs(Date.parse(reset.now) - Date.now())).toBeLessThan(1_000);
  });
});

describe("--state DIR", () => {
  test("a restarted emulator has the first one's objects and the same keys", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cp-state-"));
    const state = join(dir, "state");
    try {
      const first = await emulator({ stateFile: state });
      const c = first.client();
      const p = await c.create<any>(`/v1/workspaces/${first.workspaceId}/projects`, { name: "persisted" });
      await c.create(`/v1/projects/${p.id}/environments`, { name: "prod" });
      const keys = { ...first.keys, apiKey: first.apiKey, workspaceId: first.workspaceId };
      await first.close();
      // What the directory holds, read as the next run will (boolean checks: it holds keys too).
      const projectNames = () => (readState(state).tables.projects ?? []).map((x: any) => x.name);
      expect(projectNames()).toEqual(["persisted"]);

      const second = await emulator({ stateFile: state });
      try {
        expect({ ...second.keys, apiKey: second.apiKey, workspaceId: second.workspaceId }).toEqual(keys);
        const again = await second.client().get<any>(`/v1/projects/${p.id}`);
        expect(again).toMatchObject({ name: "persisted", environments: [expect.objectContaining({ name: "prod" })] });
        await expect(second.client(second.keys.account).list("/v1/workspaces")).resolves.toHaveLength(2);
        // A change in the second run is written before its answer arrives.
        await second.client().delete(`/v1/projects/${p.id}`);
        expect(projectNames()).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a reset is written as one clear that spares the identity tables: a restart has the keys and nothing users made", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cp-state-"));
    const state = join(dir, "state");
    try {
      const first = await emulator({ stateFile: state });
      await first.client().create(`/v1/workspaces/${first.workspaceId}/projects`, { name: "gone" });
      await first.control("POST", "/reset");
      const journal = readFileSync(join(state, "journal-1.jsonl"), "utf8").trim().split("\n");
      expect(JSON.parse(journal.at(-1)!).ops).toEqual([["clear", IDENTITY_TABLES]]);
      await first.close();

      const second = await emulator({ stateFile: state });
      try {
        expect(second.apiKey).toBe(first.apiKey);
        await expect(second.client().get("/v1/me")).resolves.toBeDefined();
        expect(await second.leftovers()).toEqual({});
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
