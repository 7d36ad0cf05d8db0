// The in-process emulator's options. They take the names of the CLI's flags (`state` for
// --state DIR, `delegate` for --delegate DOMAIN, ...), so a test reads like the command it replaces.
import type { EmuSettings, LogEvent } from "./emu";
import { parseRateLimit } from "./rate-limit";

export interface EmulatorOptions {
  /** --port: HTTP port of the API and the control routes (default: any free port). */
  port?: number;
  /** --host: address to listen on (default 127.0.0.1). */
  host?: string;
  /**
   * --state DIR: keep the state in this directory across restarts (made if missing): the rows users
   * made, keys, delegations, external DNS records, the propagation delay and the clock offset. A
   * legacy JSON state file at this path is converted into a directory (kept beside it as `<path>.v1.json`).
   */
  state?: string;
  /** @deprecated the earlier name of `state`. */
  stateFile?: string;
  /** --speed: scale every simulated lifecycle; 0 makes them instant (default 1, realistic). */
  speed?: number;
  /** --dns-propagation-ms: delay before a new or changed public DNS record is visible (default 0). */
  dnsPropagationMs?: number;
  /** --delegate: domains whose public nameservers point at the platform. */
  delegate?: string[];
  /** --dns-port: also serve the simulated public DNS over UDP and TCP on this port (0 picks one). */
  dnsPort?: number;
  /** --dns-host: the DNS server's address (default: `host` when it is loopback, else 127.0.0.1); it answers anyone who reaches it. */
  dnsHost?: string;
  /** --send-rate: email send requests per minute per key (default 3000). */
  sendRate?: number;
  /** --rate-limit: `N/min` or `N/s` per API key (or the parsed form, with its burst). */
  rateLimit?: string | { perMinute: number; burst?: number };
  /** --rate-burst: requests a key may make at once before the rate limit applies. */
  rateBurst?: number;
  /** --log: structured log events (HTTP, DNS, mail, state, errors): true writes JSON lines to stderr, a function receives them. Errors go to stderr either way. */
  log?: boolean | ((event: LogEvent) => void);
  /** @deprecated the same as `log: true`. */
  logger?: boolean;
  /** How long close() lets requests under way finish before it cuts their connections (default 10 s). */
  shutdownGraceMs?: number;
  /** --allowed-host: host names the emulator answers to besides loopback names, IP addresses and `host` (e.g. a container's service name). */
  allowedHost?: string[];
  /** @deprecated the earlier name of `allowedHost`; the two add up. */
  allowedHosts?: string[];
  /** --control-token: the token the control API and the dashboard's JSON then need; required to serve beyond loopback. */
  controlToken?: string;
  /** The settings by their internal names; the flag-named options above win over these. */
  settings?: Partial<EmuSettings>;
}

/** The options reduced to what startEmulator uses: the state directory, the settings, the rate limit and the allowed hosts. */
export function normalizeOptions(opts: EmulatorOptions): {
  state?: string;
  settings: Partial<EmuSettings>;
  rateLimit?: { perMinute: number; burst?: number };
  allowedHosts: string[];
} {
  const settings: Partial<EmuSettings> = { ...opts.settings };
  if (opts.speed !== undefined) settings.speed = nonNegative(opts.speed, "speed");
  if (opts.dnsPropagationMs !== undefined) settings.dnsPropagationMs = nonNegative(opts.dnsPropagationMs, "dnsPropagationMs");
  if (opts.sendRate !== undefined) settings.sendRatePerMinute = nonNegative(opts.sendRate, "sendRate");
  if (opts.delegate !== undefined) settings.delegations = [...(settings.delegations ?? []), ...opts.delegate];
  let rateLimit = typeof opts.rateLimit === "string" ? { perMinute: parseRateLimit(opts.rateLimit) } : opts.rateLimit;
  if (opts.rateBurst !== undefined) {
    if (!rateLimit) throw new Error("rateBurst (--rate-burst) applies only with rateLimit (--rate-limit)");
    rateLimit = { ...rateLimit, burst: nonNegative(opts.rateBurst, "rateBurst") };
  }
  if (opts.state !== undefined && opts.stateFile !== undefined && opts.state !== opts.stateFile) {
    throw new Error("state and stateFile (its deprecated name) name different directories; give state only");
  }
  const allowedHosts = [...new Set([...(opts.allowedHost ?? []), ...(opts.allowedHosts ?? [])])];
  return { state: opts.state ?? opts.stateFile, settings, rateLimit, allowedHosts };
}

function nonNegative(n: number, name: string): number {
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${String(n)}`);
  return n;
}
