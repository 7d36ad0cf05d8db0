// The shared adaptive limiter on an injected clock: when pacing starts, the rate it starts at, how
// it slows and recovers, when it stops, and how far apart it lets requests go (fake timers).
import { AdaptiveLimiter, sharedLimiter } from "../../provider/client/limiter";

let now: number;
const limiter = () => new AdaptiveLimiter(() => now);
beforeEach(() => {
  now = 1_000_000;
  jest.useFakeTimers();
});
afterEach(() => jest.useRealTimers());

/** `n` successes, `gapMs` apart, ending at the current time. */
function successes(l: AdaptiveLimiter, n: number, gapMs: number): void {
  now -= n * gapMs;
  for (let i = 0; i < n; i++) {
    now += gapMs;
    l.succeeded();
  }
}

/** Two 429s 100 ms apart: pacing starts at the second. */
function pace(l: AdaptiveLimiter): void {
  l.throttled();
  now += 100;
  l.throttled();
}

/** Whether acquire() lets the request go within `ms` (of fake time). */
async function goesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await jest.advanceTimersByTimeAsync(ms);
  return done;
}

describe("when pacing starts", () => {
  test("two 429s less than 5 s apart start it; further apart they are blips", () => {
    const l = limiter();
    successes(l, 10, 100);
    l.throttled();
    now += 5_000;
    l.throttled();
    expect(l.rate).toBe(Infinity);
    now += 4_999;
    l.throttled();
    expect(l.rate).toBeLessThan(Infinity);
    expect(l.throttledCount).toBe(3);
  });

  test("unpaced, every request goes at once", async () => {
    const l = limiter();
    for (let i = 0; i < 50; i++) expect(await goesWithin(l.acquire(), 0)).toBe(true);
  });
});

describe("the rate it starts at", () => {
  test("what the platform accepted over the last 3 s", () => {
    const l = limiter();
    successes(l, 20, 100); // 20 over 2 s, measured from the first of them
    pace(l);
    expect(l.rate).toBeCloseTo(20 / 2.0, 5);
  });

  test("successes older than 3 s do not count", () => {
    const l = limiter();
    successes(l, 30, 50);
    now += 3_000;
    successes(l, 6, 100);
    pace(l);
    expect(l.rate).toBeCloseTo(6 / 0.6, 5);
  });

  test("a burst in one instant is measured over at least half a second", () => {
    const l = limiter();
    successes(l, 10, 0);
    l.throttled();
    l.throttled();
    expect(l.rate).toBeCloseTo(20, 5);
  });

  test("never below one request a second, even with no success to go by", () => {
    const l = limiter();
    pace(l);
    expect(l.rate).toBe(1);
    const slow = limiter();
    successes(slow, 1, 0);
    now += 2_900;
    pace(slow);
    expect(slow.rate).toBe(1);
  });
});

describe("how it slows and recovers", () => {
  test("a 429 while paced takes a tenth off, at most once a second, down to the floor", () => {
    const l = limiter();
    successes(l, 20, 100);
    pace(l);
    now += 999;
    l.throttled();
    expect(l.rate).toBeCloseTo(10, 5);
    now += 1;
    l.throttled();
    expect(l.rate).toBeCloseTo(9, 5);
    for (let i = 0; i < 40; i++) {
      now += 1_000;
      l.throttled();
    }
    expect(l.rate).toBe(1);
  });

  test("a 429 while paced slows it even when it comes more than 5 s after the last one", () => {
    const l = limiter();
    successes(l, 20, 100);
    pace(l);
    now += 6_000;
    l.throttled();
    expect(l.rate).toBeCloseTo(9, 5);
  });

  test("each success adds a little, and four times less once near the rate the last 429 came at", () => {
    const l = limiter();
    successes(l, 20, 100);
    pace(l);
    now += 1_000;
    l.throttled(); // the 429 came at 10/s: slowed to 9/s
    expect(l.rate).toBeCloseTo(9, 5);
    for (let i = 0; i < 24; i++) l.succeeded();
    expect(l.rate).toBeCloseTo(9.48, 5); // still under 95% of 10
    l.succeeded();
    l.succeeded();
    const near = l.rate; // past 9.5 (where exactly depends on rounding)
    expect(near).toBeGreaterThanOrEqual(9.5);
    l.succeeded();
    expect(l.rate - near).toBeCloseTo(0.005, 5);
  });

  test("successes while unpaced leave it unpaced", () => {
    const l = limiter();
    successes(l, 5, 10);
    expect(l.rate).toBe(Infinity);
  });
});

describe("how far apart it lets requests go", () => {
  test("at 10/s, requests leave 100 ms apart, in order", async () => {
    const l = limiter();
    successes(l, 20, 100);
    pace(l);
    expect(l.rate).toBeCloseTo(10, 5);
    expect(await goesWithin(l.acquire(), 0)).toBe(true);
    const second = l.acquire();
    const third = l.acquire();
    expect(await goesWithin(second, 99)).toBe(false);
    expect(await goesWithin(second, 1)).toBe(true);
    expect(await goesWithin(third, 99)).toBe(false);
    expect(await goesWithin(third, 1)).toBe(true);
  });

  test("a request after a pause goes at once: idle time is not banked as a burst", async () => {
    const l = limiter();
    successes(l, 20, 100);
    pace(l);
    await l.acquire();
    now += 5_000;
    expect(await goesWithin(l.acquire(), 0)).toBe(true);
    expect(await goesWithin(l.acquire(), 99)).toBe(false);
  });

  test("a 429 does not let the next request jump the ones already queued", async () => {
    const l = limiter();
    successes(l, 20, 100);
    pace(l);
    now += 1_000;
    void l.acquire();
    void l.acquire();
    void l.acquire(); // queued until 200 ms from now; the next slot is at 300 ms
    l.throttled(); // slows to 9/s
    const fourth = l.acquire();
    expect(await goesWithin(fourth, 299)).toBe(false);
    expect(await goesWithin(fourth, 1)).toBe(true);
  });
});

describe("when pacing stops", () => {
  test("after 15 s without a 429, and it then starts afresh from what is accepted", async () => {
    const l = limiter();
    successes(l, 20, 100);
    pace(l);
    now += 1_000;
    l.throttled(); // 9/s, the 429 came at 10/s
    now += 15_000;
    await l.acquire();
    expect(l.rate).toBeCloseTo(9, 5);
    now += 1;
    await l.acquire();
    expect(l.rate).toBe(Infinity);
    // Paced again, now at about 21/s: the old 429's rate (10/s) is forgotten, so growth is the full step.
    successes(l, 20, 50);
    pace(l);
    expect(l.rate).toBeCloseTo(20 / 1.05, 5);
    const before = l.rate;
    l.succeeded();
    expect(l.rate).toBeCloseTo(before + 0.02, 5);
  });
});

describe("one limiter per account", () => {
  test("the same base URL and key share one; another key or URL has its own", () => {
    const key = `svc_live_${"a".repeat(40)}`;
    const a = sharedLimiter("http://api.test", key);
    expect(sharedLimiter("http://api.test", key)).toBe(a);
    expect(sharedLimiter("http://api.test", `svc_live_${"b".repeat(40)}`)).not.toBe(a);
    expect(sharedLimiter("http://other.test", key)).not.toBe(a);
  });
});
