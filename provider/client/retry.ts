// The retry policy, plugged into undici's RetryAgent: what may be repeated, and how long to wait.
import type { RetryHandler } from "undici";

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff step; doubles each retry up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxElapsedMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxElapsedMs: 60_000 };

// 429 is retried by the client, paced by the shared limiter (limiter.ts).
const RETRY_STATUS = new Set([500, 502, 503, 504]);
export const RETRY_ERROR_CODES = [
  "ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH",
  "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CLOSED",
];
const SAFE_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/** Safe to repeat: reads, deletes and PUTs, and any request that carries an Idempotency-Key. */
export function isRepeatable(method: string, headers: unknown): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  return headerValue(headers, "idempotency-key") !== undefined;
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.max(0, Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Capped exponential backoff with jitter, so clients spread out: step n (from 0) waits
 * min(maxMs, baseMs * factor^n), of which the top `jitter` share is random (by default half: "equal
 * jitter"). Retries and the resource waiters both use it.
 */
export function jitteredDelay(step: number, baseMs: number, maxMs: number, factor = 2, random = Math.random, jitter = 0.5): number {
  const ceiling = Math.min(maxMs, baseMs * factor ** Math.max(0, step));
  return ceiling * (1 - jitter) + random() * ceiling * jitter;
}

/** The wait before retry `attempt` (from 1). */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  return jitteredDelay(attempt - 1, policy.baseDelayMs, policy.maxDelayMs, 2, random);
}

export interface RetryObserver {
  onRetry?(info: { attempt: number; delayMs: number; status?: number; code?: string }): void;
}

/** Builds the RetryAgent callback for one logical request that started at `startedAt`. */
export function retryCallback(policy: RetryPolicy, startedAt: number, observer: RetryObserver = {}): RetryHandler.RetryCallback {
  return (err, { state, opts }, cb) => {
    const e = err as Error & { statusCode?: number; code?: string; headers?: Record<string, string | string[]> };
    const status = e.statusCode;
    const retryableStatus = status !== undefined && RETRY_STATUS.has(status);
    const retryableError = status === undefined && e.code !== undefined && RETRY_ERROR_CODES.includes(e.code);
    // These may have been acted on, so only requests that are safe to repeat are sent again.
    if (!(retryableStatus || retryableError) || !isRepeatable(opts.method, opts.headers)) return cb(err);
    if (state.counter > policy.maxRetries) return cb(err);
    const hinted = status === 503 ? parseRetryAfter(e.headers?.["retry-after"]) : undefined;
    const delay = hinted ?? backoffMs(state.counter, policy);
    if (Date.now() + delay - startedAt > policy.maxElapsedMs) return cb(err);
    observer.onRetry?.({ attempt: state.counter, delayMs: delay, status, code: e.code });
    setTimeout(() => cb(null), delay);
  };
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    return undefined;
  }
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() === name && v !== undefined) return String(v);
  }
  return undefined;
}
