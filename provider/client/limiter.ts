// One adaptive rate limiter per platform account in the process, shared by every client (so by
// every resource of an `up`): unlimited until the platform answers 429 more than once in a short
// time, then paced at the rate the platform was seen to accept, with AIMD (slower by a tenth on
// each 429, a little faster on each success) and back to unlimited after a quiet spell.
import { createHash } from "node:crypto";

/** Never paced slower than this (requests per second); a 429's Retry-After still applies. */
const FLOOR_PER_S = 1;
/** Multiplicative decrease on a 429; at most one decrease per second (a burst of 429s is one signal). */
const DECREASE = 0.9;
/** Additive increase per success, in requests per second: about 2% faster each second. */
const INCREASE = 0.02;
/** A second 429 within this time starts pacing; one alone (a blip) only makes its request wait. */
const PACE_AFTER_MS = 5_000;
/** Pacing stops after this long without a 429. */
const QUIET_MS = 15_000;
/** Successes over this window estimate what the platform accepts. */
const WINDOW_MS = 3_000;

export class AdaptiveLimiter {
  /** Requests per second; Infinity while unpaced. */
  #rate = Infinity;
  #next = 0;
  #lastThrottled = -Infinity;
  #lastDecrease = -Infinity;
  #successes: number[] = [];
  /** The rate the last 429 came at: past it, the rate grows four times slower. */
  #ceiling = Infinity;
  throttledCount = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get rate(): number {
    return this.#rate;
  }

  /** Waits for this request's turn. */
  async acquire(): Promise<void> {
    const now = this.now();
    if (this.#rate !== Infinity && now - this.#lastThrottled > QUIET_MS) {
      this.#rate = Infinity;
      this.#ceiling = Infinity;
    }
    if (this.#rate === Infinity) return;
    const at = Math.max(now, this.#next);
    this.#next = at + 1000 / this.#rate;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }

  succeeded(): void {
    const now = this.now();
    this.#successes.push(now);
    while (this.#successes.length && this.#successes[0] < now - WINDOW_MS) this.#successes.shift();
    if (this.#rate !== Infinity) this.#rate += this.#rate < this.#ceiling * 0.95 ? INCREASE : INCREASE / 4;
  }

  throttled(): void {
    const now = this.now();
    this.throttledCount++;
    const repeated = now - this.#lastThrottled < PACE_AFTER_MS;
    this.#lastThrottled = now;
    if (!repeated && this.#rate === Infinity) return;
    if (now - this.#lastDecrease < 1000) return;
    this.#lastDecrease = now;
    if (this.#rate === Infinity) {
      // What the platform accepted lately: with its bucket empty, that is its refill rate.
      const recent = this.#successes.filter((t) => t >= now - WINDOW_MS);
      const spanMs = Math.max(500, recent.length ? now - recent[0] : WINDOW_MS);
      this.#rate = Math.max(FLOOR_PER_S, (recent.length / spanMs) * 1000);
    } else {
      this.#ceiling = this.#rate;
      this.#rate = Math.max(FLOOR_PER_S, this.#rate * DECREASE);
    }
    this.#next = Math.max(this.#next, now);
  }
}

const limiters = new Map<string, AdaptiveLimiter>();

/** The process's limiter for one account: keyed by base URL and a hash of the key, never the key. */
export function sharedLimiter(baseUrl: string, apiKey: string): AdaptiveLimiter {
  const id = `${baseUrl} ${createHash("sha256").update(apiKey).digest("hex").slice(0, 16)}`;
  let l = limiters.get(id);
  if (!l) limiters.set(id, (l = new AdaptiveLimiter()));
  return l;
}
