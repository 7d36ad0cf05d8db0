// Starts the platform emulator in-process: used by the CLI, the tests, the demo and the benches.
import type { FastifyInstance } from "fastify";
import { isIPv6 } from "node:net";
import { buildApp } from "./app";
import { seed, type SeedResult } from "./auth";
import { Emu, type EmuSettings, type LogEvent, stderrSink } from "./emu";
import { DEFAULT_REGION } from "./models/catalogue";
import { TEST_MAIL_DOMAIN } from "./models/emails";
import { startDnsServer } from "./dns-server";
import { closeAllDatabases, openDatabases } from "./postgres";
import { addReadiness } from "./readiness";
import { Store } from "./store";
import { seedStorageKeys } from "./models/storage";

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** Keep state in this JSON file across restarts. */
  stateFile?: string;
  /** Structured log events (HTTP, DNS, mail, state, errors): true writes JSON lines to stderr, a function receives them. Errors go to stderr either way. */
  log?: boolean | ((event: LogEvent) => void);
  /** The same as `log: true` (kept for callers of earlier versions). */
  logger?: boolean;
  settings?: Partial<EmuSettings>;
  /** Also serve the simulated public DNS over UDP on this port (0 picks one). */
  dnsPort?: number;
  /** Per-key rate limit: requests per minute, and how many a key may save up. */
  rateLimit?: { perMinute: number; burst?: number };
}

export interface RunningEmulator extends SeedResult {
  baseUrl: string;
  /** `HOST:PORT` of the DNS server (`[::1]:PORT` for an IPv6 host), when one was asked for. */
  dnsAddress?: string;
  /** Storage access keys with their secrets: the credentials of the S3 endpoint in each bucket's `endpoint`. */
  storageKeys: { workspaceId: string; name: string; accessKeyId: string; secret: string }[];
  /** Sandbox keys send from and to any address at this domain (conventions §4.3). */
  testMailDomain: string;
  emu: Emu;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const settings: EmuSettings = { defaultRegion: DEFAULT_REGION, dnsPropagationMs: 0, speed: 1, delegations: [], ...opts.settings };
  // Database clusters and backup dumps live beside the state file.
  if (opts.stateFile && !settings.dataDir) settings.dataDir = `${opts.stateFile}.data`;
  const loaded = opts.stateFile ? Store.loadFrom(opts.stateFile) : undefined;
  const emu = new Emu(loaded ?? new Store(), settings);
  const sink = typeof opts.log === "function" ? opts.log : opts.log || opts.logger ? stderrSink : undefined;
  if (sink) emu.logSink = sink;
  if (loaded) emu.log({ kind: "state", msg: `state loaded from ${opts.stateFile}`, file: opts.stateFile, rows: Object.values(loaded.counts()).reduce((a, b) => a + b, 0) });
  const seeded = loaded
    ? emu.store.table<{ id: string; value: SeedResult }>("seed").get("seed")?.value
    : undefined;
  const ids = seeded ?? seed(emu.store, emu.now(), settings.defaultRegion);
  const storageKeys = seedStorageKeys(emu.store, emu.now())
    .map(({ workspaceId, name, accessKeyId, secret }) => ({ workspaceId, name, accessKeyId, secret }));
  emu.persistTo(opts.stateFile);
  emu.rateLimit.set(opts.rateLimit);
  emu.save();

  const app = buildApp(emu);
  const host = (opts.host ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1");
  await app.listen({ port: opts.port ?? 0, host });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const baseUrl = `http://${hostPort(host, port!)}`;
  emu.settings.baseUrl = baseUrl;
  const dns = opts.dnsPort === undefined ? undefined : await startDnsServer(emu, opts.dnsPort, host);
  if (dns) addReadiness(emu, "dns", () => [{ name: "dns", ready: true, state: "serving", address: hostPort(host, dns.port) }]);
  await openDatabases(emu);
  return {
    ...ids,
    baseUrl,
    storageKeys,
    ...(dns ? { dnsAddress: hostPort(host, dns.port) } : {}),
    testMailDomain: TEST_MAIL_DOMAIN,
    emu,
    app,
    close: async () => {
      emu.emit("close", undefined);
      await closeAllDatabases(emu);
      await dns?.close();
      await app.close();
      emu.save();
      if (opts.stateFile) emu.log({ kind: "state", msg: `state written to ${opts.stateFile}`, file: opts.stateFile });
    },
  };
}

/** `host:port`, with an IPv6 address in brackets (RFC 3986; a zone id's `%` escaped). */
export function hostPort(host: string, port: number): string {
  return isIPv6(host) ? `[${host.replace(/%/g, "%25")}]:${port}` : `${host}:${port}`;
}

export { Emu } from "./emu";
export type { LogEvent } from "./emu";
export type { FaultRule } from "./faults";
