// Waiting on the platform: durations such as "90s" or "15m", and a poller with capped, jittered
// exponential backoff that never sleeps past its deadline.
import { jitteredDelay } from "../client";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "90s", "15m", "1h30m", "500ms" or a bare number of seconds, to milliseconds. */
export function parseDuration(value: string | number, what = "timeout"): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${what}: must be a positive duration`);
    return value * 1000;
  }
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return parseDuration(Number(s), what);
  const parts = [...s.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join("") !== s) {
    throw new Error(`${what}: '${value}' is not a duration; use forms such as "90s", "15m" or "1h30m"`);
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]], 0);
  if (ms <= 0) throw new Error(`${what}: must be a positive duration`);
  return ms;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
}

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** The random share of each delay (0 to 1); the client's backoff uses half. */
  jitter?: number;
}
/**
 * The verifications' polls (one DNS re-check each), every 2.0 to 2.4 s: a record that has become
 * visible is seen about a second later on average, at 0.45 requests a second (bench P4). Equal
 * steps: a growing backoff would ask more often early and see late records later.
 */
export const DEFAULT_POLL: BackoffPolicy = { initialMs: 2400, maxMs: 2400, factor: 1, jitter: 0.15 };

/** The n-th delay (0-based), with the client's capped, jittered backoff. */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_POLL, random = Math.random): number {
  return jitteredDelay(attempt, policy.initialMs, policy.maxMs, policy.factor, random, policy.jitter);
}

export type PollOutcome<T> = { done: true; value: T } | { done: false; value: T; progress?: string };

/**
 * Calls `step` until it reports done or the deadline passes; a last call is made at the deadline.
 * Returns `{ value, timedOut }` with the last value seen. `waitFirst` sleeps one interval before the
 * first call, for a check that cannot pass yet (records written a moment ago).
 */
export async function pollUntil<T>(
  step: () => Promise<PollOutcome<T>>,
  opts: { timeoutMs: number; policy?: BackoffPolicy; waitFirst?: boolean; log?: (m: string) => void; sleep?: (ms: number) => Promise<void> },
): Promise<{ value: T; timedOut: boolean }> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + opts.timeoutMs;
  const first = opts.waitFirst ? 1 : 0;
  if (first) await sleep(Math.min(backoffDelay(0, opts.policy), opts.timeoutMs));
  for (let attempt = first; ; attempt++) {
    const out = await step();
    if (out.done) return { value: out.value, timedOut: false };
    const left = deadline - Date.now();
    if (left <= 0) return { value: out.value, timedOut: true };
    const wait = Math.min(backoffDelay(attempt, opts.policy), left);
    if (out.progress) opts.log?.(`${out.progress}; next check in ${formatDuration(wait)} (gives up in ${formatDuration(left)})`);
    await sleep(wait);
  }
}

/** How long one wait may take, and the setting that limits it, for the error when it runs out. */
export interface WaitBudget {
  ms: number;
  /** "`timeout`" (the resource's input or its default) or "customTimeouts" (the operation's limit). */
  limit: "`timeout`" | "customTimeouts";
}

/**
 * The wait limit of an operation: the resource's own `timeout` input (or the default), cut short
 * by the operation's time limit (customTimeouts) when that is shorter.
 */
export function waitBudgetMs(ctx: { timeoutMs?: number }, inputTimeout: string | undefined, defaultMs: number): WaitBudget {
  const own = inputTimeout === undefined ? defaultMs : parseDuration(inputTimeout);
  if (ctx.timeoutMs !== undefined && ctx.timeoutMs > 0 && ctx.timeoutMs < own) return { ms: ctx.timeoutMs, limit: "customTimeouts" };
  return { ms: own, limit: "`timeout`" };
}

/** " (customTimeouts)" when the operation's limit ended the wait, for messages that name the limit hit. */
export const limitNote = (b: WaitBudget) => (b.limit === "customTimeouts" ? " (customTimeouts)" : "");
