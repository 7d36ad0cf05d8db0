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
import { StateDir } from "./journal";
import { LOOPBACK } from "./loopback";
import { Blobs, setBlobs } from "./blobs";
import { moveInlineBodies } from "./models/bodies";
import { join } from "node:path";
import { Store } from "./store";
import { seedStorageKeys } from "./models/storage";
import { checkExposure, ControlToken, isLoopback } from "./control-token";
import { checkAllowedHost } from "./guard";
import { type EmulatorOptions, normalizeOptions } from "./options";

export type { EmulatorOptions } from "./options";

export interface RunningEmulator extends SeedResult {
  baseUrl: string;
  /** `HOST:PORT` of the DNS server (`[::1]:PORT` for an IPv6 host), when one was asked for. */
  dnsAddress?: string;
  /** What listens beyond loopback, each as `what ADDRESS: who may use it`; absent when nothing does. */
  exposed?: string[];
  /** Storage access keys with their secrets: the credentials of the S3 endpoint in each bucket's `endpoint`. */
  storageKeys: { workspaceId: string; name: string; accessKeyId: string; secret: string }[];
  /** Sandbox keys send from and to any address at this domain (conventions §4.3). */
  testMailDomain: string;
  emu: Emu;
  app: FastifyInstance;
  /** Stops accepting, lets requests under way finish, closes the databases, then writes and closes the state. */
  close(): Promise<void>;
  /** For a process that must exit at once: writes what the state has not yet written, and releases it. */
  closeNow(): void;
}

/** What `--state` keeps besides the rows. */
interface KeptSettings {
  delegations?: string[];
  dnsPropagationMs?: number;
  clockOffsetMs?: number;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = (opts.host ?? LOOPBACK).replace(/^\[(.*)\]$/, "$1");
  checkExposure(host, opts.controlToken);
  // Every listener binds loopback unless asked: the DNS server follows --host only while it is loopback.
  const dnsHost = (opts.dnsHost ?? (isLoopback(host) ? host : LOOPBACK)).replace(/^\[(.*)\]$/, "$1");
  const { state: stateDir, settings: given, rateLimit, allowedHosts } = normalizeOptions(opts);
  allowedHosts.forEach(checkAllowedHost);
  const store = new Store();
  let emu: Emu | undefined;
  // Events of the load (a torn batch cut off, a legacy file converted) wait for the emulator's sink.
  const early: LogEvent[] = [];
  const logState = (msg: string, fields?: Record<string, unknown>) => (emu ? emu.log({ kind: "state", msg, ...fields }) : early.push({ kind: "state", msg, ...fields }));
  const state = stateDir ? await StateDir.open(stateDir, store, { log: logState }) : undefined;
  const kept = (state?.meta ?? {}) as KeptSettings;
  // Flags add to what the state kept: delegations are the union, an explicit delay wins.
  const settings: EmuSettings = {
    defaultRegion: DEFAULT_REGION, dnsPropagationMs: 0, speed: 1, ...given,
    delegations: [...new Set([...(kept.delegations ?? []), ...(given.delegations ?? [])])],
    ...(given.dnsPropagationMs === undefined && kept.dnsPropagationMs !== undefined ? { dnsPropagationMs: kept.dnsPropagationMs } : {}),
    ...(state && given.dataDir === undefined ? { dataDir: state.dataDir } : {}),
  };
  emu = new Emu(store, settings);
  const running = emu;
  const sink = typeof opts.log === "function" ? opts.log : opts.log || opts.logger ? stderrSink : undefined;
  if (sink) emu.logSink = sink;
  for (const event of early) emu.log(event);
  if (state) emu.log({ kind: "state", msg: `state loaded from ${stateDir}`, file: stateDir, rows: Object.values(store.counts()).reduce((a, b) => a + b, 0) });
  if (kept.clockOffsetMs) emu.clock.advance(kept.clockOffsetMs);
  state?.attach(() => ({
    delegations: [...running.settings.delegations],
    dnsPropagationMs: running.settings.dnsPropagationMs,
    clockOffsetMs: running.clock.offset,
  }), (err) => running.log({ kind: "error", msg: "could not write the state", error: String(err) }));
  const seeded = store.table<{ id: string; value: SeedResult }>("seed").get("seed")?.value;
  const ids = seeded ?? seed(store, emu.now(), settings.defaultRegion);
  const storageKeys = seedStorageKeys(store, emu.now())
    .map(({ workspaceId, name, accessKeyId, secret }) => ({ workspaceId, name, accessKeyId, secret }));
  emu.rateLimit.set(rateLimit);
  // Object bodies are files beside the state (a temporary directory without one); files no row names are a crash's leftovers.
  const blobs = Blobs.open(state ? join(state.dir, "objects") : undefined);
  setBlobs(emu, blobs);
  const moved = moveInlineBodies(emu);
  const swept = blobs.sweep(emu);
  if (moved || swept) emu.log({ kind: "state", msg: "object bodies: moved inline ones to files, removed files no object names", moved, removed: swept });
  emu.on("reset", () => blobs.sweepSoon(emu));
  emu.save();

  const app = buildApp(emu, {
    allowedHosts, boundHost: host, token: opts.controlToken === undefined ? undefined : new ControlToken(opts.controlToken),
  });
  let dns: Awaited<ReturnType<typeof startDnsServer>> | undefined;
  try {
    await app.listen({ port: opts.port ?? 0, host });
    dns = opts.dnsPort === undefined ? undefined : await startDnsServer(emu, opts.dnsPort, dnsHost);
  } catch (err) {
    await app.close();
    await state?.close();
    blobs.close();
    throw err;
  }
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const baseUrl = `http://${hostPort(host, port!)}`;
  emu.settings.baseUrl = baseUrl;
  const dnsPort = dns?.port;
  if (dnsPort !== undefined) addReadiness(emu, "dns", () => [{ name: "dns", ready: true, state: "serving", address: hostPort(dnsHost, dnsPort) }]);
  // Databases listen on loopback only (postgres.ts); these two are the listeners a flag can widen.
  const exposed = [
    ...(isLoopback(host) ? [] : [`http ${hostPort(host, port!)}: the API with its keys; the control API and the dashboard with the control token`]),
    ...(dnsPort === undefined || isLoopback(dnsHost) ? [] : [`dns ${hostPort(dnsHost, dnsPort)}: the simulated public DNS, to anyone (UDP and TCP)`]),
  ];
  await openDatabases(emu);
  let closing: Promise<void> | undefined;
  return {
    ...ids,
    baseUrl,
    storageKeys,
    ...(dnsPort !== undefined ? { dnsAddress: hostPort(dnsHost, dnsPort) } : {}),
    ...(exposed.length ? { exposed } : {}),
    testMailDomain: TEST_MAIL_DOMAIN,
    emu,
    app,
    close: () => (closing ??= (async () => {
      // New connections are refused at once; requests under way finish (bounded), then what they use closes.
      running.stopping = true;
      const grace = setTimeout(() => app.server.closeAllConnections(), opts.shutdownGraceMs ?? 10_000);
      // Each step runs even when one before it fails: the databases and the state's lock must not outlive us.
      try {
        await Promise.all([app.close(), dns?.close()]);
      } finally {
        clearTimeout(grace);
        running.emit("close", undefined);
        try {
          await closeAllDatabases(running);
        } finally {
          await state?.close();
          blobs.close();
        }
      }
      if (state) running.log({ kind: "state", msg: `state written to ${stateDir}`, file: stateDir });
    })()),
    closeNow: () => state?.closeNow(),
  };
}

/** `host:port`, with an IPv6 address in brackets (RFC 3986; a zone id's `%` escaped). */
export function hostPort(host: string, port: number): string {
  return isIPv6(host) ? `[${host.replace(/%/g, "%25")}]:${port}` : `${host}:${port}`;
}

export { Emu } from "./emu";
export type { LogEvent } from "./emu";
export type { FaultRule } from "./faults";
