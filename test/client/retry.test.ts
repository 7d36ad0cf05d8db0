// The client's retry policy against the emulator's fault injection: what is retried, how long it
// waits, when it gives up, and that a create's retries act once.
import {
  backoffMs, ConnectionError, DEFAULT_RETRY, InternalServerError, NotFoundError, parseRetryAfter, RateLimitError,
  type RetryPolicy,
} from "../../provider/client";
import { isRepeatable } from "../../provider/client/retry";
import { V1Project } from "../../provider/api/projects";
import { emulator, type TestEmulator } from "../support/emulator";
import { RecordingAgent, failure } from "../support/helpers";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const FAST: Partial<RetryPolicy> = { baseDelayMs: 5, maxDelayMs: 50 };
const PROJECTS = "/v1/workspaces/:workspaceId/projects";

/** Requests the emulator saw for one route (`METHOD /url/:pattern`), by status. */
async function seen(route: string): Promise<{ count: number; byStatus: Record<string, number> }> {
  const all = await emu.control("GET", "/counters");
  return all[route] ?? { count: 0, byStatus: {} };
}
const fault = (rule: Record<string, unknown>) => emu.control("POST", "/faults", rule);
const projectsPath = () => `/v1/workspaces/${emu.workspaceId}/projects`;

afterAll(() => RecordingAgent.closeAll());

describe("backoffMs", () => {
  const policy: RetryPolicy = { maxRetries: 10, baseDelayMs: 100, maxDelayMs: 1_000, maxElapsedMs: 60_000 };

  test("doubles per attempt, with half of each step random", () => {
    expect(backoffMs(1, policy, () => 0)).toBe(50);
    expect(backoffMs(1, policy, () => 1)).toBe(100);
    expect(backoffMs(2, policy, () => 0)).toBe(100);
    expect(backoffMs(2, policy, () => 1)).toBe(200);
    expect(backoffMs(3, policy, () => 0.5)).toBe(300);
    expect(backoffMs(0, policy, () => 1)).toBe(100);
  });

  test("is capped at maxDelayMs however many attempts", () => {
    expect(backoffMs(5, policy, () => 1)).toBe(1_000);
    expect(backoffMs(50, policy, () => 1)).toBe(1_000);
    expect(backoffMs(50, policy, () => 0)).toBe(500);
  });

  test("jitter spreads clients out within [step/2, step]", () => {
    const values = Array.from({ length: 200 }, () => backoffMs(3, policy));
    for (const v of values) {
      expect(v).toBeGreaterThanOrEqual(200);
      expect(v).toBeLessThanOrEqual(400);
    }
    expect(new Set(values.map((v) => Math.round(v))).size).toBeGreaterThan(20);
  });

  test("defaults are bounded", () => {
    expect(DEFAULT_RETRY.maxRetries).toBeGreaterThan(0);
    expect(DEFAULT_RETRY.maxDelayMs).toBeGreaterThanOrEqual(DEFAULT_RETRY.baseDelayMs);
    expect(DEFAULT_RETRY.maxElapsedMs).toBeGreaterThan(DEFAULT_RETRY.maxDelayMs);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  test("seconds", () => {
    expect(parseRetryAfter("3", now)).toBe(3_000);
    expect(parseRetryAfter(" 2 ", now)).toBe(2_000);
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter("1.5", now)).toBe(1_500);
    expect(parseRetryAfter(["4", "9"], now)).toBe(4_000);
  });
  test("HTTP date, relative to now; a past date means now", () => {
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:05 GMT", now)).toBe(5_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 23:59:00 GMT", now)).toBe(0);
  });
  test("absent or unreadable", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});

describe("isRepeatable", () => {
  test("reads and deletes are, PATCH and a bare POST are not", () => {
    expect(isRepeatable("GET", {})).toBe(true);
    expect(isRepeatable("DELETE", {})).toBe(true);
    expect(isRepeatable("PATCH", {})).toBe(false);
    expect(isRepeatable("POST", { "content-type": "application/json" })).toBe(false);
    expect(isRepeatable("PATCH", undefined)).toBe(false);
  });
  test("a POST with an Idempotency-Key is, whatever the header's case or shape", () => {
    expect(isRepeatable("POST", { "idempotency-key": "k" })).toBe(true);
    expect(isRepeatable("POST", { "Idempotency-Key": "k" })).toBe(true);
    expect(isRepeatable("post", ["Idempotency-Key", "k"])).toBe(true);
    expect(isRepeatable("POST", ["x-request-id", "r"])).toBe(false);
  });
});

describe("retries against the emulator", () => {
  test("429 with Retry-After in seconds: waits at least the hint, then succeeds", async () => {
    await fault({ kind: "status", status: 429, retryAfter: "seconds", retryAfterSeconds: 1, path: "/v1/me", count: 1 });
    const retries: { delayMs: number; status?: number }[] = [];
    const c = emu.client(undefined, { retry: FAST, onRetry: (i) => retries.push(i) });
    const t0 = performance.now();
    const me = await c.get<{ email: string }>("/v1/me");
    const elapsed = performance.now() - t0;
    expect(me.email).toBe("owner@example.test");
    expect(retries).toEqual([expect.objectContaining({ status: 429, delayMs: 1_000 })]);
    // The hint wins over the (much shorter) backoff.
    expect(elapsed).toBeGreaterThanOrEqual(995);
    expect(await seen("GET /v1/me")).toEqual({ count: 2, byStatus: { 429: 1, 200: 1 } });
  });

  test("429 with Retry-After as an HTTP date: waits until that date", async () => {
    await fault({ kind: "status", status: 429, retryAfter: "date", retryAfterSeconds: 2, path: "/v1/me", count: 1 });
    const retries: { delayMs: number }[] = [];
    const c = emu.client(undefined, { retry: FAST, onRetry: (i) => retries.push(i) });
    const t0 = performance.now();
    await c.get("/v1/me");
    const elapsed = performance.now() - t0;
    expect(retries).toHaveLength(1);
    // An HTTP date has whole seconds, so the wait is between 1 and 2 seconds.
    expect(retries[0].delayMs).toBeGreaterThan(900);
    expect(retries[0].delayMs).toBeLessThanOrEqual(2_000);
    expect(elapsed).toBeGreaterThanOrEqual(retries[0].delayMs - 5);
    expect((await seen("GET /v1/me")).count).toBe(2);
  });

  test("503 with Retry-After is honoured too", async () => {
    await fault({ kind: "status", status: 503, retryAfterSeconds: 0.3, path: "/v1/me", count: 1 });
    const retries: { delayMs: number }[] = [];
    const c = emu.client(undefined, { retry: FAST, onRetry: (i) => retries.push(i) });
    const t0 = performance.now();
    await c.get("/v1/me");
    expect(retries.map((r) => r.delayMs)).toEqual([300]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(295);
  });

  test.each([500, 502, 503, 504])("%i is retried with backoff", async (status) => {
    await fault({ kind: "status", status, path: "/v1/me", count: 2 });
    const retries: { attempt: number; delayMs: number; status?: number }[] = [];
    const c = emu.client(undefined, { retry: FAST, onRetry: (i) => retries.push(i) });
    await expect(c.get("/v1/me")).resolves.toMatchObject({ email: "owner@example.test" });
    expect(retries.map((r) => r.status)).toEqual([status, status]);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    for (const r of retries) expect(r.delayMs).toBeLessThanOrEqual(50);
    expect(await seen("GET /v1/me")).toEqual({ count: 3, byStatus: { [status]: 2, 200: 1 } });
  });

  test.each([400, 404, 409, 422])("%i is not retried", async (status) => {
    await fault({ kind: "status", status, path: "/v1/me", count: 1 });
    const c = emu.client(undefined, { retry: FAST });
    await expect(c.get("/v1/me")).rejects.toMatchObject({ status });
    expect((await seen("GET /v1/me")).count).toBe(1);
  });

  test("a dropped connection on a GET is retried", async () => {
    await fault({ kind: "drop", method: "GET", path: "/v1/me", count: 1 });
    const retries: { code?: string }[] = [];
    const c = emu.client(undefined, { retry: FAST, onRetry: (i) => retries.push(i) });
    await expect(c.get("/v1/me")).resolves.toMatchObject({ email: "owner@example.test" });
    expect(retries).toHaveLength(1);
    expect(retries[0].code).toBeDefined();
    expect((await seen("GET /v1/me")).count).toBe(2);
  });

  test("an attempt that times out is retried", async () => {
    // undici checks header timeouts on a ~0.5 s tick, so the slow answer must be well beyond that.
    await fault({ kind: "latency", latencyMs: 2_500, path: "/v1/me", count: 1 });
    const retries: { code?: string }[] = [];
    const c = emu.client(undefined, { retry: FAST, timeoutMs: 100, onRetry: (i) => retries.push(i) });
    // The first attempt timed out (its code), and the retry got the answer: nothing waited for the slow one.
    await expect(c.get("/v1/me")).resolves.toMatchObject({ email: "owner@example.test" });
    expect(retries.map((r) => r.code)).toEqual(["UND_ERR_HEADERS_TIMEOUT"]);
  });

  test("a DELETE is retried on 503 and on a dropped connection", async () => {
    const c = emu.client(undefined, { retry: FAST });
    const p = await c.create<{ id: string }>(projectsPath(), { name: "to-delete" });
    await fault({ kind: "status", status: 503, method: "DELETE", count: 1 });
    await c.delete(`/v1/projects/${p.id}`);
    await expect(c.get(`/v1/projects/${p.id}`)).rejects.toBeInstanceOf(NotFoundError);

    const q = await c.create<{ id: string }>(projectsPath(), { name: "to-delete-2" });
    await fault({ kind: "drop", method: "DELETE", count: 1 });
    // The first attempt committed; the retry finds it gone and says so.
    await expect(c.delete(`/v1/projects/${q.id}`)).rejects.toBeInstanceOf(NotFoundError);
    expect(await seen("DELETE /v1/projects/:projectId")).toEqual({ count: 4, byStatus: { 503: 1, 204: 1, 0: 1, 404: 1 } });
  });

  test("maxRetries caps the attempts", async () => {
    await fault({ kind: "status", status: 503, path: "/v1/me" });
    const c = emu.client(undefined, { retry: { ...FAST, maxRetries: 2 } });
    const err = await failure(c.get("/v1/me"));
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.status).toBe(503);
    expect((await seen("GET /v1/me")).count).toBe(3);

    await emu.control("DELETE", "/counters");
    const none = emu.client(undefined, { retry: { ...FAST, maxRetries: 0 } });
    await expect(none.get("/v1/me")).rejects.toBeInstanceOf(InternalServerError);
    expect((await seen("GET /v1/me")).count).toBe(1);

    // A per-call policy overrides the client's.
    await emu.control("DELETE", "/counters");
    await expect(none.get("/v1/me", { retry: { maxRetries: 1 } })).rejects.toBeInstanceOf(InternalServerError);
    expect((await seen("GET /v1/me")).count).toBe(2);
  });

  test("maxElapsedMs stops retrying even with retries left", async () => {
    await fault({ kind: "status", status: 503, path: "/v1/me" });
    const c = emu.client(undefined, { retry: { baseDelayMs: 40, maxDelayMs: 40, maxRetries: 1_000, maxElapsedMs: 200 } });
    const t0 = performance.now();
    await expect(c.get("/v1/me")).rejects.toBeInstanceOf(InternalServerError);
    // Far from the 40 s that 1000 retries would take, however busy the machine.
    expect(performance.now() - t0).toBeLessThan(20_000);
    const { count } = await seen("GET /v1/me");
    // Waits of 20..40 ms within 200 ms: a handful of attempts, far from 1000.
    expect(count).toBeGreaterThanOrEqual(2);
    expect(count).toBeLessThanOrEqual(12);
  });

  test("a Retry-After beyond maxElapsedMs is not waited for", async () => {
    await fault({ kind: "status", status: 429, retryAfterSeconds: 30, path: "/v1/me", count: 1 });
    const c = emu.client(undefined, { retry: { ...FAST, maxElapsedMs: 2_000 } });
    const t0 = performance.now();
    const err = await failure(c.get("/v1/me"));
    // Far from the 30 s asked for, however busy the machine; and no second attempt.
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(30_000);
    expect((await seen("GET /v1/me")).count).toBe(1);
  });
});

describe("only safe requests are retried", () => {
  test("a PATCH is not retried on 503", async () => {
    const c = emu.client(undefined, { retry: FAST });
    const p = await c.create<{ id: string }>(projectsPath(), { name: "patched" });
    await fault({ kind: "status", status: 503, method: "PATCH", count: 1 });
    await expect(c.patch(`/v1/projects/${p.id}`, { description: "x" })).rejects.toBeInstanceOf(InternalServerError);
    expect(await seen("PATCH /v1/projects/:projectId")).toEqual({ count: 1, byStatus: { 503: 1 } });
  });

  test("a PATCH is not retried after a dropped connection (it may have committed)", async () => {
    const c = emu.client(undefined, { retry: FAST });
    const p = await c.create<{ id: string }>(projectsPath(), { name: "patched" });
    await fault({ kind: "drop", method: "PATCH", count: 1 });
    const err = await failure(c.patch(`/v1/projects/${p.id}`, { description: "committed" }));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.attempts).toBe(1);
    expect(err.method).toBe("PATCH");
    expect((await seen("PATCH /v1/projects/:projectId")).count).toBe(1);
    expect((await c.get<any>(`/v1/projects/${p.id}`)).description).toBe("committed");
  });

  test("a 429 is retried for every method: the server refused it before acting", async () => {
    const c = emu.client(undefined, { retry: FAST });
    const p = await c.create<{ id: string }>(projectsPath(), { name: "limited" });
    await fault({ kind: "status", status: 429, retryAfterSeconds: 0, method: "PATCH", count: 1 });
    await expect(c.patch<any>(`/v1/projects/${p.id}`, { description: "later" })).resolves.toMatchObject({ description: "later" });
    expect(await seen("PATCH /v1/projects/:projectId")).toEqual({ count: 2, byStatus: { 429: 1, 200: 1 } });
    await fault({ kind: "status", status: 429, retryAfterSeconds: 0, method: "POST", count: 1 });
    await expect(c.post(projectsPath(), { name: "bare" })).resolves.toMatchObject({ name: "bare" });
    expect((await c.list(projectsPath())).length).toBe(2);
  });

  test("a POST without an Idempotency-Key is not retried on 503 or a drop", async () => {
    const c = emu.client(undefined, { retry: FAST });
    await fault({ kind: "status", status: 503, method: "POST", count: 1 });
    await expect(c.post(projectsPath(), { name: "bare" })).rejects.toBeInstanceOf(InternalServerError);
    expect((await seen(`POST ${PROJECTS}`)).count).toBe(1);

    await fault({ kind: "drop", method: "POST", count: 1 });
    await expect(c.post(projectsPath(), { name: "bare" })).rejects.toBeInstanceOf(ConnectionError);
    expect((await seen(`POST ${PROJECTS}`)).count).toBe(2);
    // The dropped one committed exactly once.
    expect((await c.list<any>(projectsPath())).map((p) => p.name)).toEqual(["bare"]);
  });

  test("create() without a key (idempotencyKey: undefined) is not retried either", async () => {
    const rec = new RecordingAgent();
    const c = emu.client(undefined, { retry: FAST, dispatcher: rec });
    await fault({ kind: "status", status: 503, method: "POST", count: 1 });
    await expect(c.create(projectsPath(), { name: "nokey" }, { idempotencyKey: undefined })).rejects.toBeInstanceOf(InternalServerError);
    expect(rec.attempts).toHaveLength(1);
    expect(rec.attempts[0].headers["idempotency-key"]).toBeUndefined();
  });
});

describe("creates keep one Idempotency-Key across retries", () => {
  test("commit, then drop the connection: the retry returns the one object made", async () => {
    const rec = new RecordingAgent();
    const c = emu.client(undefined, { retry: FAST, dispatcher: rec });
    await fault({ kind: "drop", method: "POST", path: projectsPath(), count: 1 });
    const res = await c.request("POST", projectsPath(), { body: { name: "once" }, idempotencyKey: true, schema: V1Project });
    expect(res.status).toBe(201);
    expect(res.data.name).toBe("once");
    expect(res.headers["idempotent-replayed"]).toBe("true");

    // Both attempts carried the same key and the same request id.
    expect(rec.attempts).toHaveLength(2);
    const [a, b] = rec.attempts.map((x) => x.headers);
    expect(a["idempotency-key"]).toMatch(/^[\x21-\x7e]{8,255}$/);
    expect(b["idempotency-key"]).toBe(a["idempotency-key"]);
    expect(b["x-request-id"]).toBe(a["x-request-id"]);

    const listed = await c.list<any>(projectsPath());
    expect(listed.map((p) => p.id)).toEqual([res.data.id]);
    expect((await emu.leftovers()).projects).toBe(1);
    expect(emu.emu.store.table("projects").size).toBe(1);
    expect(await seen(`POST ${PROJECTS}`)).toEqual({ count: 2, byStatus: { 0: 1, 201: 1 } });
  });

  test("create() after 503s and a drop: one object, one key", async () => {
    const rec = new RecordingAgent();
    const c = emu.client(undefined, { retry: FAST, dispatcher: rec });
    await fault({ kind: "status", status: 503, method: "POST", count: 2 });
    await fault({ kind: "drop", method: "POST", count: 1 });
    const p = await c.create<any>(projectsPath(), { name: "stubborn" }, { schema: V1Project });
    expect(p.name).toBe("stubborn");
    expect(rec.attempts).toHaveLength(4);
    expect(new Set(rec.attempts.map((x) => x.headers["idempotency-key"])).size).toBe(1);
    expect((await c.list<any>(projectsPath())).map((x) => x.id)).toEqual([p.id]);
  });

  test("two separate creates get two different keys", async () => {
    const rec = new RecordingAgent();
    const c = emu.client(undefined, { retry: FAST, dispatcher: rec });
    await c.create(projectsPath(), { name: "same" });
    await c.create(projectsPath(), { name: "same" });
    const keys = rec.attempts.map((x) => x.headers["idempotency-key"]);
    expect(keys[0]).not.toBe(keys[1]);
    expect((await c.list(projectsPath())).length).toBe(2);
  });

  test("a caller-chosen key is sent as given", async () => {
    const rec = new RecordingAgent();
    const c = emu.client(undefined, { retry: FAST, dispatcher: rec });
    const a = await c.create<any>(projectsPath(), { name: "mine" }, { idempotencyKey: "deploy-42" });
    const b = await c.create<any>(projectsPath(), { name: "mine" }, { idempotencyKey: "deploy-42" });
    expect(rec.attempts.map((x) => x.headers["idempotency-key"])).toEqual(["deploy-42", "deploy-42"]);
    expect(b.id).toBe(a.id);
  });
});
