// The emulator's shared context: state, time, settings, fault rules and counters. Handlers and
// models get this object; nothing else is global.
import { Clock } from "./clock";
import { Store } from "./store";
import { Faults } from "./faults";
import { RateLimiter } from "./rate-limit";
import { RequestLog } from "./request-log";

export interface EmuSettings {
  /** Region key new projects and services fall back to. */
  defaultRegion: string;
  /** Delay before a new or changed public DNS record becomes visible. */
  dnsPropagationMs: number;
  /** How fast simulated lifecycles (provisioning, builds) move. 1 = realistic, 0 = instant. */
  speed: number;
  /** Domains whose public nameservers point at the platform (`--delegate`). */
  delegations: string[];
  /** The emulator's own address, known once it listens; URLs it serves itself (bucket endpoints, presigned uploads and exports, sites) start with it. */
  baseUrl?: string;
  /** Largest static upload accepted (bytes); default 50 MiB. */
  staticUploadMaxBytes?: number;
  /** Email send requests per minute per key (`--send-rate`); 3,000 when unset. */
  sendRatePerMinute?: number;
  /** A directory for durable data kept with the state (database clusters, dumps): `<state>/data` with `--state`; without it such data lives in a temporary directory. */
  dataDir?: string;
}

/** One structured log event (HTTP, DNS, SQL, mail, state, error); the CLI decides where it goes. */
export interface LogEvent {
  kind: "http" | "dns" | "sql" | "mail" | "state" | "error";
  msg: string;
  [field: string]: unknown;
}

/** One JSON line per event on stderr, stamped with the wall-clock time (stdout keeps the CLI's JSON line alone). */
export function stderrSink(event: LogEvent): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);
}

type Listener = (payload: any) => void;

export class Emu {
  readonly clock = new Clock();
  readonly faults = new Faults((rule, why) => this.log({ kind: "error", msg: `fault ${rule.id} skipped: ${why}`, faultId: rule.id }));
  readonly rateLimit = new RateLimiter();
  readonly counters = new Map<string, { count: number; byStatus: Record<string, number> }>();
  /** The last requests answered, for the dashboard's live log. */
  readonly requests = new RequestLog();
  private listeners = new Map<string, Listener[]>();
  /** Set while the emulator shuts down: replies close their connections, so the server can stop. */
  stopping = false;
  /** Where log events go; none by default. */
  logSink?: (event: LogEvent) => void;

  constructor(
    public store: Store,
    readonly settings: EmuSettings,
  ) {}

  /** Writes the changes made so far to the state (`--state`); nothing to do in memory. Throws when the state cannot be written. */
  save(): void {
    this.store.flush();
  }

  /** Resolves once the changes made so far are written (`--state`), sharing one write with the other replies of this turn; undefined in memory or when nothing changed. */
  commit(): Promise<void> | undefined {
    return this.store.commit();
  }

  /** Hands an event to the sink; without one, errors still go to stderr, so a 500 always leaves a trace. */
  log(event: LogEvent): void {
    try {
      if (this.logSink) this.logSink(event);
      else if (event.kind === "error") stderrSink(event);
    } catch {
      // A sink that fails (a closed pipe) never fails the request that logged.
    }
  }

  now(): string {
    return this.clock.iso();
  }

  /** The emulator's own events (reset, close) for parts that keep state outside the store; cascades between models are in models/cascades.ts. */
  on(event: string, fn: Listener): void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn]);
  }

  emit(event: string, payload: unknown): void {
    for (const fn of this.listeners.get(event) ?? []) fn(payload);
  }

  count(route: string, status: number): void {
    const c = this.counters.get(route) ?? { count: 0, byStatus: {} };
    c.count += 1;
    c.byStatus[status] = (c.byStatus[status] ?? 0) + 1;
    this.counters.set(route, c);
  }
}
