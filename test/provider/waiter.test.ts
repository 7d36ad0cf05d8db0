// The waiter: the duration forms a `timeout` input accepts, how waits are written in progress
// lines, and the poller's schedule against its deadline (an injected sleep on a fake clock).
import { formatDuration, limitNote, parseDuration, pollUntil, waitBudgetMs } from "../../provider/resources/waiter";

describe("parseDuration", () => {
  test("units add up, decimals and surrounding spaces are fine", () => {
    expect(parseDuration("1.5m")).toBe(90_000);
    expect(parseDuration("2h")).toBe(7_200_000);
    expect(parseDuration("1m30s250ms")).toBe(90_250);
    expect(parseDuration(" 45s ")).toBe(45_000);
    expect(parseDuration("2.5")).toBe(2_500);
    expect(parseDuration(12)).toBe(12_000);
    expect(parseDuration("2.55")).toBe(2_550);
    expect(parseDuration("1.25s")).toBe(1_250);
  });

  test("anything else is refused, naming the setting and the accepted forms", () => {
    for (const bad of ["90s later", "later 90s", "90x", "90 s", "s", "", "1h 30m", "-5s", "x5", "5x"]) {
      expect(() => parseDuration(bad, "verifyTimeout")).toThrow(`verifyTimeout: '${bad}' is not a duration; use forms such as "90s", "15m" or "1h30m"`);
    }
  });

  test("zero, negative and non-finite numbers are refused", () => {
    for (const bad of [0, -1, Infinity, NaN]) expect(() => parseDuration(bad, "timeout")).toThrow("timeout: must be a positive duration");
    expect(() => parseDuration("0", "timeout")).toThrow("timeout: must be a positive duration");
    expect(() => parseDuration("0m0s")).toThrow("timeout: must be a positive duration");
  });
});

describe("formatDuration", () => {
  test.each([
    [0, "0ms"], [499.6, "500ms"], [999, "999ms"], [1_000, "1s"], [1_499, "1s"], [90_000, "90s"], [119_000, "119s"],
    [120_000, "2m"], [150_000, "2m30s"], [3_600_000, "60m"], [3_661_000, "61m1s"],
  ])("%d ms reads %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("pollUntil on a fake clock", () => {
  const T0 = Date.parse("2026-01-01T00:00:00Z");
  beforeEach(() => jest.useFakeTimers({ now: T0 }));
  afterEach(() => jest.useRealTimers());

  /** A sleep that only moves the clock, remembering each wait. */
  function clock() {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      jest.setSystemTime(Date.now() + ms);
    };
    return { waits, sleep };
  }

  test("waits grow with the policy, the last one is cut to the deadline, and a last check runs at it", async () => {
    const { waits, sleep } = clock();
    const checks: number[] = [];
    const logs: string[] = [];
    const out = await pollUntil(async () => {
      checks.push(Date.now() - T0);
      return { done: false, value: checks.length, progress: "DNS record not visible yet" };
    }, { timeoutMs: 10_000, policy: { initialMs: 2_000, maxMs: 8_000, factor: 2 }, sleep, log: (m) => logs.push(m) });
    expect(out).toEqual({ value: checks.length, timedOut: true });
    // Jittered: each wait is between half and all of 2, 4, 8 s; the last ends at the deadline.
    expect(waits[0]).toBeGreaterThanOrEqual(1_000);
    expect(waits[0]).toBeLessThanOrEqual(2_000);
    expect(waits[1]).toBeGreaterThanOrEqual(2_000);
    expect(checks[checks.length - 1]).toBeCloseTo(10_000, 0);
    expect(waits.reduce((a, b) => a + b, 0)).toBeCloseTo(10_000, 0);
    expect(checks).toHaveLength(waits.length + 1);
    expect(logs[0]).toMatch(/^DNS record not visible yet; next check in [12]s \(gives up in 10s\)$/);
    expect(logs).toHaveLength(waits.length);
  });

  test("done on the first check: no wait at all; no progress text: no line", async () => {
    const { waits, sleep } = clock();
    expect(await pollUntil(async () => ({ done: true, value: "live" }), { timeoutMs: 1_000, sleep })).toEqual({ value: "live", timedOut: false });
    expect(waits).toEqual([]);
    const logs: string[] = [];
    let n = 0;
    await pollUntil(async () => (++n === 2 ? { done: true, value: n } : { done: false, value: n }), { timeoutMs: 60_000, sleep, log: (m) => logs.push(m) });
    expect(logs).toEqual([]);
    expect(waits).toHaveLength(1);
  });

  test("the default policy asks every 2.04 to 2.4 s, never sooner or later", async () => {
    const { waits, sleep } = clock();
    let n = 0;
    await pollUntil(async () => ({ done: ++n === 40, value: n }), { timeoutMs: 600_000, sleep });
    expect(waits).toHaveLength(39);
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(2_040);
      expect(w).toBeLessThanOrEqual(2_400);
    }
    // At most one request every 2.04 s: under bench P4's 0.5 a second.
    expect(waits.length / (waits.reduce((a, b) => a + b, 0) / 1000)).toBeLessThan(0.5);
  });

  test("waitFirst sleeps one interval before the first check, and still ends at the deadline", async () => {
    const { waits, sleep } = clock();
    const checks: number[] = [];
    const out = await pollUntil(async () => {
      checks.push(Date.now() - T0);
      return { done: checks.length === 2, value: checks.length };
    }, { timeoutMs: 60_000, waitFirst: true, sleep });
    expect(out).toEqual({ value: 2, timedOut: false });
    expect(waits).toHaveLength(2);
    expect(checks[0]).toBeCloseTo(waits[0], 0);
    expect(checks[0]).toBeGreaterThanOrEqual(2_040);

    const short = clock();
    const late = await pollUntil(async () => ({ done: false, value: "pending" }), { timeoutMs: 1_000, waitFirst: true, sleep: short.sleep });
    expect(late).toEqual({ value: "pending", timedOut: true });
    expect(short.waits).toEqual([1_000]);
  });

  test("without an injected sleep it waits on timers between checks, and a progress text needs no log", async () => {
    let n = 0;
    const done = pollUntil(async () => (++n >= 2 ? { done: true, value: n } : { done: false, value: n, progress: "pending" }), {
      timeoutMs: 60_000, policy: { initialMs: 1_000, maxMs: 1_000, factor: 1 },
    });
    await jest.advanceTimersByTimeAsync(499); // the jittered wait is 500 to 1000 ms
    expect(n).toBe(1);
    await jest.advanceTimersByTimeAsync(501);
    await expect(done).resolves.toEqual({ value: 2, timedOut: false });
  });

  test("a check that ends past the deadline is the last", async () => {
    const { waits, sleep } = clock();
    let n = 0;
    const out = await pollUntil(async () => {
      n++;
      jest.setSystemTime(Date.now() + 5_000); // a slow check
      return { done: false, value: n };
    }, { timeoutMs: 5_000, sleep });
    expect(out).toEqual({ value: 1, timedOut: true });
    expect(waits).toEqual([]);
  });
});

describe("wait budgets", () => {
  test("customTimeouts only when shorter than the resource's own limit, and the note says so", () => {
    const cut = waitBudgetMs({ timeoutMs: 89_999 }, "90s", 600_000);
    expect(cut).toEqual({ ms: 89_999, limit: "customTimeouts" });
    expect(limitNote(cut)).toBe(" (customTimeouts)");
    const own = waitBudgetMs({ timeoutMs: 90_000 }, "90s", 600_000);
    expect(own).toEqual({ ms: 90_000, limit: "`timeout`" });
    expect(limitNote(own)).toBe("");
    expect(waitBudgetMs({ timeoutMs: -1 }, undefined, 1_000)).toEqual({ ms: 1_000, limit: "`timeout`" });
  });
});
