// A per-key token bucket (`--rate-limit N/min`, or PUT /_emulator/rate-limit): each API key holds
// up to `burst` tokens, refilled at `perMinute` on real time (not the emulator's movable clock);
// a request without a token is answered 429 with Retry-After.
import { createHash } from "node:crypto";
import { IdleMap } from "./idle-map";

/** Keys tracked at once: a bucket is named by any Authorization header, so random headers must not grow memory without end. */
export const MAX_BUCKETS = 10_000;

export interface RateLimit {
  perMinute: number;
  /** Tokens a key starts with and can save up; default: one second's worth, at least 1. */
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  #limit?: RateLimit;
  // A bucket idle long enough to refill is the same as a new one: it can go.
  readonly #buckets = new IdleMap<Bucket>(MAX_BUCKETS, () => (this.#limit ? Math.ceil(this.#limit.burst * 60_000 / this.#limit.perMinute) : 0));

  set(limit: { perMinute: number; burst?: number } | undefined): void {
    // A limit of 0, NaN or Infinity would answer every request 429 forever, or none.
    if (limit && !(Number.isFinite(limit.perMinute) && limit.perMinute > 0)) throw new RangeError(`perMinute must be a positive number, not ${limit.perMinute}`);
    if (limit?.burst !== undefined && !(Number.isInteger(limit.burst) && limit.burst >= 1)) throw new RangeError(`burst must be a whole number of at least 1, not ${limit.burst}`);
    this.#limit = limit && { perMinute: limit.perMinute, burst: limit.burst ?? Math.max(1, Math.floor(limit.perMinute / 60)) };
    this.#buckets.clear();
  }

  get(): RateLimit | undefined {
    return this.#limit;
  }

  /** Buckets held now (at most MAX_BUCKETS). */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes a token for the key of `authorization`: 0, or the milliseconds until one is free. */
  take(authorization: string | undefined, now = Date.now()): number {
    const limit = this.#limit;
    if (!limit) return 0;
    // The bucket is named by a hash: the emulator keeps no key in clear.
    const id = createHash("sha256").update(authorization ?? "").digest("hex");
    const perMs = limit.perMinute / 60_000;
    const b = this.#buckets.use(id, now, () => ({ tokens: limit.burst, at: now }));
    b.tokens = Math.min(limit.burst, b.tokens + (now - b.at) * perMs);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) / perMs);
  }
}

/** Parses `N/min`, `N/s` or `N` (per minute). */
export function parseRateLimit(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(min|m|minute|s|sec|second))?\s*$/i.exec(text);
  if (!m || Number(m[1]) <= 0) throw new Error(`--rate-limit must look like '120/min' or '2/s', got '${text}'`);
  const n = Number(m[1]);
  return m[2] && /^s/i.test(m[2]) ? n * 60 : n;
}
