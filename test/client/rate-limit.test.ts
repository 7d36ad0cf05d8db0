// Rate limits: the emulator's per-key token bucket (429 + Retry-After, the spec's error body), and
// the client's shared adaptive limiter, which lets a big batch of creates finish with no error.
import { AdaptiveLimiter } from "../../provider/client/limiter";
import { parseRateLimit } from "../../emulator/rate-limit";
import { RateLimitError } from "../../provider/client";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const NO_RETRY = { maxRetries: 0 };

describe("the emulator's limit", () => {
  test("per key: a key past its burst gets 429 with Retry-After and the spec's body; another key is not affected", async () => {
    expect(await emu.control("PUT", "/rate-limit", { perMinute: 60, burst: 3 })).toEqual({ perMinute: 60, burst: 3 });
    const api = emu.client(undefined, { retry: NO_RETRY });
    for (let i = 0; i < 3; i++) await api.get("/v1/me");
    const err = await failure(api.get("/v1/me"));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(1_000);
    expect(err.body).toEqual({ statusCode: 429, error: "Too Many Requests", message: expect.stringContaining("Retry-After") });
    const other = Object.values(emu.keys as Record<string, string>).find((k) => k !== emu.apiKey && k.startsWith("svc_"))!;
    await expect(emu.client(other, { retry: NO_RETRY }).get("/v1/me")).resolves.toBeDefined();
    // The control API is never limited, and DELETE lifts the limit.
    expect(await emu.control("GET", "/rate-limit")).toEqual({ perMinute: 60, burst: 3 });
    await emu.control("DELETE", "/rate-limit");
    await expect(api.get("/v1/me")).resolves.toBeDefined();
  });

  test("the command line's forms", () => {
    expect(parseRateLimit("120/min")).toBe(120);
    expect(parseRateLimit("2/s")).toBe(120);
    expect(parseRateLimit("90")).toBe(90);
    expect(() => parseRateLimit("fast")).toThrow("--rate-limit must look like '120/min'");
  });
});

describe("the client's shared limiter", () => {
  // How few 429s the limiter lets through depends on how the machine schedules requests: bench/ (P3) measures it.
  test("100 creates, 10 at a time, under 600/min: no error, no duplicate, and every 429 counted by both sides", async () => {
    await emu.control("PUT", "/rate-limit", { perMinute: 600, burst: 5 });
    const path = `/v1/workspaces/${emu.workspaceId}/projects`;
    let throttled = 0;
    // Several clients, as several resources of one `up` have: they share one limiter.
    const clients = Array.from({ length: 10 }, () => emu.client(undefined, { onRetry: (i) => void (i.status === 429 && throttled++) }));
    const t0 = Date.now();
    const errors: unknown[] = [];
    let next = 0;
    await Promise.all(clients.map(async (c) => {
      while (next < 100) {
        const n = next++;
        await c.create(path, { name: `p${n}` }).catch((e) => errors.push(e));
      }
    }));
    const seconds = (Date.now() - t0) / 1000;
    const minimum = (100 - 5) / 10;
    process.stdout.write(`100 creates under 600/min: ${seconds.toFixed(1)} s (minimum ${minimum} s, ${(seconds / minimum).toFixed(2)}x), ${throttled} 429s\n`);
    expect(errors).toEqual([]);
    expect((await emu.client().list(path)).length).toBe(100);
    const counters = await emu.control("GET", "/counters");
    expect(counters["POST rate-limited"]?.count ?? 0).toBe(throttled);
    expect(throttled).toBeGreaterThan(0);
  });

  test("AIMD: paced after repeated 429s at what the platform accepted, faster on success, unpaced after a quiet spell", async () => {
    let now = 0;
    const l = new AdaptiveLimiter(() => now);
    for (let i = 0; i < 30; i++) {
      now += 100;
      l.succeeded();
    }
    l.throttled();
    expect(l.rate).toBe(Infinity); // one 429 alone is a blip
    now += 100;
    l.throttled();
    expect(l.rate).toBeCloseTo(10); // 29 successes over the last 2.9 s
    now += 500;
    l.throttled();
    expect(l.rate).toBeCloseTo(10); // at most one decrease a second
    now += 600;
    l.throttled();
    expect(l.rate).toBeCloseTo(9);
    l.succeeded();
    expect(l.rate).toBeCloseTo(9.02);
    now += 20_000;
    await l.acquire();
    expect(l.rate).toBe(Infinity);
  });
});
