// The emulator's control API (no auth, loopback only), for the worker's emulator.
import { ENV, required } from "./env";

/** Calls /_emulator{path} on the worker's emulator; resolves with the parsed answer. */
export async function control<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const base = required(ENV.baseUrl).replace(/\/+$/, "");
  const res = await fetch(`${base}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`emulator control ${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * Forgets everything users created (projects, services, buckets, mail, the outbox...), faults and
 * the clock offset; the keys in the environment stay valid. Call it in beforeEach (or afterEach).
 */
export async function reset(): Promise<void> {
  await control("POST", "/reset");
}

/** Points a domain's public nameservers at the platform, as `--delegate` does (for zones and mail domains). */
export async function delegate(domain: string): Promise<void> {
  await control("POST", "/dns/delegations", { domain });
}

/** Moves the emulator's clock forward (cron runs, expiries, mail statuses). */
export async function advanceClock(ms: number): Promise<void> {
  await control("POST", "/time", { advanceMs: ms });
}
