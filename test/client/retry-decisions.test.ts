// The retry decision for one failed attempt, called as undici's RetryAgent calls it: which errors
// and statuses are retried, for which requests, how long it waits, and when it stops. Fake timers:
// a retry is a timer that calls back with null, a refusal is an immediate call back with the error.
import { parseRetryAfter, type RetryPolicy } from "../../provider/client";
import { isRepeatable, retryCallback } from "../../provider/client/retry";

const POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1_000, maxElapsedMs: 10_000 };

const T0 = Date.parse("2026-01-01T00:00:00Z");
beforeEach(() => jest.useFakeTimers({ now: T0 }));
afterEach(() => jest.useRealTimers());

interface Attempt {
  method?: string;
  headers?: unknown;
  counter?: number;
  policy?: RetryPolicy;
  startedAt?: number;
}

/** Runs the decision; `retried` is the wait before the retry, or undefined when it gave up. */
function decide(err: Record<string, unknown>, a: Attempt = {}) {
  // Each decision starts at T0, however far the last one moved the clock.
  jest.setSystemTime(T0);
  const error = Object.assign(new Error("failed"), err);
  const cb = jest.fn();
  const retries: { attempt: number; delayMs: number; status?: number; code?: string }[] = [];
  const callback = retryCallback(a.policy ?? POLICY, a.startedAt ?? Date.now(), { onRetry: (i) => retries.push(i) });
  callback(error, { state: { counter: a.counter ?? 1 }, opts: { method: a.method ?? "GET", headers: a.headers ?? {} } } as never, cb);
  if (cb.mock.calls.length) {
    expect(cb).toHaveBeenCalledWith(error);
    expect(retries).toEqual([]);
    return { retried: undefined, retries };
  }
  expect(retries).toHaveLength(1);
  const wait = retries[0].delayMs;
  // A backoff wait has a fraction of a millisecond; the timer fires within that millisecond.
  jest.advanceTimersByTime(Math.max(0, Math.floor(wait) - 1));
  expect(cb).not.toHaveBeenCalled();
  jest.advanceTimersByTime(2);
  expect(cb).toHaveBeenCalledWith(null);
  return { retried: wait, retries };
}

describe("which failures are retried", () => {
  // Refused, reset, unreachable or timed out: the request may be sent again once it is safe to.
  test.each([
    "ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH",
    "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CLOSED",
  ])("a connection failure %s", (code) => {
    const { retried, retries } = decide({ code });
    expect(retried).toBeGreaterThanOrEqual(50);
    expect(retried).toBeLessThanOrEqual(100);
    expect(retries).toEqual([{ attempt: 1, delayMs: retried, status: undefined, code }]);
  });

  test("a name that does not resolve, or an unknown failure, is not: a wrong base URL fails at once", () => {
    expect(decide({ code: "ENOTFOUND" }).retried).toBeUndefined();
    expect(decide({ code: "UND_ERR_ABORTED" }).retried).toBeUndefined();
    expect(decide({}).retried).toBeUndefined();
  });

  test.each([500, 502, 503, 504])("status %i", (statusCode) => {
    const { retries } = decide({ statusCode });
    expect(retries).toEqual([{ attempt: 1, delayMs: expect.any(Number), status: statusCode, code: undefined }]);
  });

  test.each([400, 401, 403, 404, 409, 422, 429, 501])("status %i is not retried by the transport", (statusCode) => {
    expect(decide({ statusCode }).retried).toBeUndefined();
  });
});

describe("for which requests", () => {
  test.each(["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "get", "put"])("%s is safe to repeat", (method) => {
    expect(isRepeatable(method, {})).toBe(true);
    expect(decide({ statusCode: 503 }, { method }).retried).toBeDefined();
  });

  test("POST and PATCH only with an Idempotency-Key", () => {
    expect(decide({ code: "ECONNRESET" }, { method: "POST" }).retried).toBeUndefined();
    expect(decide({ statusCode: 502 }, { method: "PATCH" }).retried).toBeUndefined();
    expect(decide({ code: "ECONNRESET" }, { method: "POST", headers: { "Idempotency-Key": "ik1_a" } }).retried).toBeDefined();
    expect(decide({ statusCode: 502 }, { method: "PATCH", headers: ["idempotency-key", "ik1_a"] }).retried).toBeDefined();
  });

  test("a header present without a value, or a value that happens to read idempotency-key, is no key", () => {
    expect(isRepeatable("POST", { "idempotency-key": undefined })).toBe(false);
    expect(isRepeatable("POST", ["x-note", "idempotency-key"])).toBe(false);
    expect(isRepeatable("POST", ["x-note", "idempotency-key", "x-other", "v"])).toBe(false);
    expect(isRepeatable("POST", ["x-note", "n", "IDEMPOTENCY-KEY", "k"])).toBe(true);
  });
});

describe("how long it waits, and when it stops", () => {
  test("backoff doubles with the attempt number, capped", () => {
    const steps = [1, 2, 3, 4].map((counter) => decide({ statusCode: 500 }, { counter, policy: { ...POLICY, maxRetries: 9 } }).retried!);
    expect(steps[0]).toBeLessThanOrEqual(100);
    expect(steps[1]).toBeGreaterThanOrEqual(100);
    expect(steps[1]).toBeLessThanOrEqual(200);
    expect(steps[2]).toBeGreaterThanOrEqual(200);
    expect(steps[3]).toBeGreaterThanOrEqual(400);
    expect(decide({ statusCode: 500 }, { counter: 9, policy: { ...POLICY, maxRetries: 9 } }).retried).toBeLessThanOrEqual(1_000);
  });

  test("a 503's Retry-After replaces the backoff", () => {
    expect(decide({ statusCode: 503, headers: { "retry-after": "4" } }).retried).toBe(4_000);
    expect(decide({ statusCode: 503, headers: { "retry-after": "Thu, 01 Jan 2026 00:00:02 GMT" } }).retried).toBe(2_000);
    // Unreadable: the backoff again.
    expect(decide({ statusCode: 503, headers: { "retry-after": "later" } }).retried).toBeLessThanOrEqual(100);
  });

  test("no retry past maxRetries", () => {
    expect(decide({ statusCode: 503 }, { counter: 3 }).retried).toBeDefined();
    expect(decide({ statusCode: 503 }, { counter: 4 }).retried).toBeUndefined();
    expect(decide({ code: "ECONNRESET" }, { counter: 1, policy: { ...POLICY, maxRetries: 0 } }).retried).toBeUndefined();
  });

  test("no retry whose wait would end past maxElapsedMs since the first attempt", () => {
    const started = T0 - 9_000;
    expect(decide({ statusCode: 503, headers: { "retry-after": "0.9" } }, { startedAt: started }).retried).toBe(900);
    expect(decide({ statusCode: 503, headers: { "retry-after": "1.1" } }, { startedAt: started }).retried).toBeUndefined();
    expect(decide({ statusCode: 503, headers: { "retry-after": "30" } }).retried).toBeUndefined();
  });
});

describe("parseRetryAfter, beyond one digit", () => {
  test("several digits and decimals are seconds", () => {
    expect(parseRetryAfter("120")).toBe(120_000);
    expect(parseRetryAfter("0.25")).toBe(250);
    expect(parseRetryAfter("10.75")).toBe(10_750);
  });

  test("a number with words after it is not a number of seconds", () => {
    expect(parseRetryAfter("3 seconds")).toBeUndefined();
    expect(parseRetryAfter("3s")).toBeUndefined();
  });

  test("a future date counts from the injected now, the first of several values wins", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(["Thu, 01 Jan 2026 00:01:00 GMT", "5"], now)).toBe(60_000);
    expect(parseRetryAfter([], now)).toBeUndefined();
  });
});
