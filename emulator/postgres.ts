// Real databases behind POSTGRES services. Each service has its own loopback listener, open from
// its creation so its address is known at once; the listener checks the startup's user and
// database names and the password (md5), then hands the connection, signed in, to the engine: one
// real PostgreSQL cluster (postgres-server.ts) or, without one, PGlite workers (postgres-pglite.ts).
// The database itself is made the first time it is needed after the service's first deploy went live.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Emu } from "./emu";
import { CodedError, notFound } from "./errors";
import { deploysOf, isDatabase, liveAtMs, type Service, services } from "./models/lifecycle";
import { findServer } from "./postgres-cluster";
import { EngineUnavailable, settlesWithin, type Engine, type SessionOptions, type Sql } from "./postgres-engine";
import { LOOPBACK } from "./loopback";
import { ServiceListener } from "./postgres-listener";
import { pgliteEngine } from "./postgres-pglite";
import { serverEngine } from "./postgres-server";
import { addReadiness, type Part } from "./readiness";

/** How long shutdown waits for running statements before stopping the server anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

interface Listener {
  serviceId: string;
  listener: ServiceListener;
  /** The service's database exists and its engine runs. */
  ready?: Promise<void>;
  state: "idle" | "starting" | "ready" | "failed";
  error?: string;
}

interface Databases {
  listeners: Map<string, Listener>;
  engine?: Engine;
  /** The data directory, and whether it is a temporary one to remove at shutdown. */
  dir?: { path: string; temporary: boolean };
  /** Console, export and backup work under way, which shutdown waits for. */
  inflight: Set<Promise<unknown>>;
  closing?: Promise<void>;
  /** Which engine would serve, before one was started. */
  kind?: Engine["kind"];
}

const registries = new WeakMap<Emu, Databases>();

function registry(emu: Emu): Databases {
  let r = registries.get(emu);
  if (!r) {
    const d: Databases = { listeners: new Map(), inflight: new Set() };
    registries.set(emu, (r = d));
    emu.on("reset", () => void resetDatabases(emu));
    addReadiness(emu, "databases", () => readinessParts(emu, d));
  }
  return r;
}

/** Where database data and backup dumps live: `settings.dataDir`, or a temporary directory removed at shutdown. */
export function dataDir(emu: Emu): string {
  const r = registry(emu);
  if (!r.dir) {
    const configured = emu.settings.dataDir;
    if (configured) mkdirSync(configured, { recursive: true, mode: 0o700 });
    r.dir = configured ? { path: configured, temporary: false } : { path: mkdtempSync(path.join(tmpdir(), "cloudplatform-emulator-")), temporary: true };
  }
  return r.dir.path;
}

/** The data directory if one is configured or was made already (never makes a temporary one). */
export function existingDataDir(emu: Emu): string | undefined {
  return registries.get(emu)?.dir?.path ?? emu.settings.dataDir;
}

function engine(emu: Emu): Engine {
  const r = registry(emu);
  if (!r.engine) {
    // Databases of services that no longer exist go whenever the engine starts.
    const live = () => services(emu).where((s) => s.type === "POSTGRES").map((s) => s.id);
    try {
      const found = findServer();
      r.engine = found === "pglite" ? pgliteEngine(dataDir(emu), live) : serverEngine(found, dataDir(emu), live);
    } catch (e) {
      r.engine = brokenEngine((e as Error).message);
    }
  }
  return r.engine;
}

/** An engine that could not even be chosen (e.g. CLOUDPLATFORM_EMULATOR_POSTGRES names no server). */
function brokenEngine(error: string): Engine {
  const fail = async (): Promise<never> => { throw new EngineUnavailable(error); };
  return {
    kind: "postgres", status: () => ({ state: "failed", error }), ensure: fail, upstream: fail, cancel: () => undefined, session: fail,
    archive: fail, drop: async () => undefined, collect: async () => undefined, activeQueries: async () => 0, stop: async () => undefined,
  };
}

/** Opens the listeners of the POSTGRES services a state file brought back, and starts their databases. */
export async function openDatabases(emu: Emu): Promise<void> {
  registry(emu);
  const all = services(emu).where((s) => s.type === "POSTGRES" && !!s.db);
  for (const svc of all) await listen(emu, svc);
  for (const svc of all.filter((s) => isProvisioned(emu, s))) void ensureReady(emu, svc).catch(() => undefined);
}

/** The first deploy of the service went live: the database exists from then on. */
export function isProvisioned(emu: Emu, svc: Service): boolean {
  const now = emu.clock.now();
  return deploysOf(emu, svc.id).some((d) => { const t = liveAtMs(d); return t !== null && t <= now; });
}

export function requireRealEngine(svc: Service): void {
  if (!isDatabase(svc.type) || !svc.db) throw notFound("Database for service", svc.id);
  if (svc.type !== "POSTGRES") {
    throw new CodedError(409, "NOT_SUPPORTED", `the emulator runs no ${svc.type} engine; the console, exports and backups work for POSTGRES services only`);
  }
}

/** Creates the service's database if needed; concurrent callers share the work. */
function ensureReady(emu: Emu, svc: Service): Promise<void> {
  const l = registry(emu).listeners.get(svc.id);
  if (!l) return Promise.reject(new EngineUnavailable("the database was closed"));
  if (!l.ready) {
    l.state = "starting";
    l.ready = engine(emu).ensure({ id: svc.id, db: svc.db! }).then(
      () => { l.state = "ready"; l.error = undefined; },
      (e: Error) => {
        l.state = "failed";
        l.error = e.message;
        l.ready = undefined;
        throw e instanceof EngineUnavailable ? e : new EngineUnavailable(e.message);
      },
    );
  }
  return l.ready;
}

/** The server went away under the session (shut down, crashed, or refusing connections): no fault of the statement. */
function lostServer(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return (typeof code === "string" && code.startsWith("57P")) || /Connection terminated/.test((e as Error).message ?? "");
}

function notRunning(svc: Service, e: unknown): CodedError {
  return new CodedError(409, "DATABASE_NOT_RUNNING", `the database of service ${svc.id} is not running: ${(e as Error).message}`);
}

/** Shutdown waits for this work. */
function track<T>(emu: Emu, work: Promise<T>): Promise<T> {
  const set = registry(emu).inflight;
  const p = work.finally(() => set.delete(p));
  set.add(p);
  return p;
}

/** Checks the service has a running database: 404 for a service that is no database, 409 NOT_SUPPORTED, NOT_PROVISIONED or DATABASE_NOT_RUNNING. */
export async function databaseRunning(emu: Emu, svc: Service): Promise<Engine> {
  requireRealEngine(svc);
  if (!isProvisioned(emu, svc)) {
    throw new CodedError(409, "NOT_PROVISIONED", `the database of service ${svc.id} is not provisioned yet: its first deploy has not gone live`);
  }
  if (registry(emu).closing) throw notRunning(svc, new Error("the emulator is shutting down"));
  await listen(emu, svc);
  try {
    await ensureReady(emu, svc);
  } catch (e) {
    throw notRunning(svc, e);
  }
  return engine(emu);
}

/**
 * Runs `fn` on a session of the service's database, as its own user unless `as: "admin"`. Errors
 * of the statements `fn` runs reach the caller as they are.
 */
export async function withDatabase<T>(emu: Emu, svc: Service, fn: (sql: Sql) => Promise<T>, opts: SessionOptions = { as: "user" }): Promise<T> {
  const e = await databaseRunning(emu, svc);
  return track(emu, e.session({ id: svc.id, db: svc.db! }, opts, fn).catch((err) => {
    throw err instanceof EngineUnavailable || lostServer(err) ? notRunning(svc, err) : err;
  }));
}

/** The engine's own archive of the database (pg_dump's custom format, or PGlite's data directory). */
export async function archiveOf(emu: Emu, svc: Service) {
  const e = await databaseRunning(emu, svc);
  return track(emu, e.archive({ id: svc.id, db: svc.db! }).catch((err) => { throw notRunning(svc, err); }));
}

/** Opens the service's loopback listener (if not yet open) and records its address on the service. */
export async function listen(emu: Emu, svc: Service): Promise<{ host: string; port: number }> {
  const reg = registry(emu);
  let l = reg.listeners.get(svc.id);
  if (!l) {
    const id = svc.id;
    // A restart from a state file tries the port the service had before.
    const listener = new ServiceListener(svc.db?.endpoint?.port ?? 0, {
      settings: () => services(emu).get(id)?.db ?? undefined,
      refusal: () => {
        if (reg.closing) return { code: "57P03", message: "the database system is shutting down" };
        const row = services(emu).get(id);
        return row && !isProvisioned(emu, row) ? { code: "57P03", message: "the database system is starting up" } : undefined;
      },
      upstream: async (params) => {
        const row = services(emu).get(id);
        if (!row?.db) throw new Error("the service was deleted");
        await ensureReady(emu, row);
        return engine(emu).upstream({ id, db: row.db }, params);
      },
      cancel: (packet) => { if (reg.engine?.status().state === "ready") reg.engine.cancel(packet); },
    });
    l = { serviceId: id, listener, state: "idle" };
    reg.listeners.set(id, l);
  }
  const endpoint = { host: LOOPBACK, port: await l.listener.port };
  const row = services(emu).get(svc.id);
  if (row?.db && (row.db.endpoint?.port !== endpoint.port || row.db.endpoint?.host !== endpoint.host)) {
    services(emu).update(svc.id, { db: { ...row.db, endpoint } });
  }
  return endpoint;
}

/** The service was deleted: its listener closes, and its database and data go. */
export async function closeDatabase(emu: Emu, svc: Service): Promise<void> {
  const r = registries.get(emu);
  const l = r?.listeners.get(svc.id);
  if (l) {
    r!.listeners.delete(svc.id);
    await l.listener.close();
  }
  if (svc.db && r?.engine) await r.engine.drop({ id: svc.id, db: svc.db }).catch(() => undefined);
}

/** The control API's reset forgot every service: their databases go, the engine stays up. */
async function resetDatabases(emu: Emu): Promise<void> {
  const r = registries.get(emu);
  if (!r || r.closing) return;
  const all = [...r.listeners.values()];
  r.listeners.clear();
  await Promise.all(all.map((l) => l.listener.close()));
  if (r.engine?.status().state === "ready") await r.engine.collect().catch(() => undefined);
}

/**
 * Emulator shutdown: no new connections; statements under way (the console's and the clients')
 * get up to SHUTDOWN_GRACE_MS to finish; then the server stops cleanly and a temporary data
 * directory is removed. Calling it again waits for the same shutdown.
 */
export function closeAllDatabases(emu: Emu, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  const r = registries.get(emu);
  if (!r) return Promise.resolve();
  r.closing ??= (async () => {
    const all = [...r.listeners.values()];
    const closed = Promise.all(all.map((l) => l.listener.stopAccepting()));
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      let clients = 0;
      if (r.engine?.status().state === "ready") {
        const asked = r.engine.activeQueries().then((n) => { clients = n; }, () => undefined);
        if (!(await settlesWithin(asked, deadline - Date.now()))) break;
      }
      if (!r.inflight.size && !clients) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await r.engine?.stop();
    for (const l of all) l.listener.dropConnections();
    await closed;
    if (r.dir?.temporary) rmSync(r.dir.path, { recursive: true, force: true });
  })();
  return r.closing;
}

function readinessParts(emu: Emu, r: Databases): Part[] {
  const status = r.engine?.status();
  const engineState = r.closing ? "stopping" : (status?.state ?? "stopped");
  const parts: Part[] = [{
    name: "postgres",
    ready: engineState === "ready" || engineState === "stopped",
    state: engineState,
    engine: r.engine?.kind ?? (r.kind ??= findServerKind()),
    ...(status?.version ? { version: status.version } : {}),
    ...(status?.error ? { error: status.error } : {}),
  }];
  for (const l of r.listeners.values()) {
    const svc = services(emu).get(l.serviceId);
    if (!svc) continue;
    const state = !isProvisioned(emu, svc) ? "provisioning" : l.state;
    parts.push({
      name: "database", serviceId: svc.id, service: svc.name, ready: state !== "starting" && state !== "failed", state,
      ...(svc.db?.endpoint ? { port: svc.db.endpoint.port } : {}), ...(l.error && state === "failed" ? { error: l.error } : {}),
    });
  }
  return parts;
}

function findServerKind(): "pglite" | "postgres" {
  try {
    return findServer() === "pglite" ? "pglite" : "postgres";
  } catch {
    return "postgres";
  }
}
