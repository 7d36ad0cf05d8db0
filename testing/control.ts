// The emulator's control API, for the worker's emulator (or one you run, with its control token).
import { ENV, required } from "./env";
import { TOKEN_ENV, TOKEN_HEADER } from "../emulator/control-token";

/** Calls /_emulator{path} on the worker's emulator; resolves with the parsed answer. */
export async function control<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const base = required(ENV.baseUrl).replace(/\/+$/, "");
  const res = await fetch(`${base}/_emulator${path}`, {
    method,
    // Changes must be JSON (the emulator refuses what a web page could send cross-site).
    headers: {
      ...(method === "GET" || method === "HEAD" ? {} : { "content-type": "application/json" }),
      ...(process.env[TOKEN_ENV] ? { [TOKEN_HEADER]: process.env[TOKEN_ENV] } : {}),
    },
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
