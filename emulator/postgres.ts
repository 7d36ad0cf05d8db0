// A real Postgres (PGlite, WASM) behind each POSTGRES service. A loopback listener opens when the
// service is created, so its address is known at once; the database itself starts the first time
// it is needed after the service's first deploy went live. The listener checks the startup's user
// and database names and the password (md5), then hands the connection to PGlite's socket server.
import { createHash, randomBytes } from "node:crypto";
import net from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { Emu } from "./emu";
import { CodedError, notFound } from "./errors";
import { deploysOf, isDatabase, liveAtMs, type Service, services } from "./models/lifecycle";

export const LOOPBACK = "127.0.0.1";

interface Backend {
  db: PGlite;
  inner: PGLiteSocketServer;
  port: number;
}

interface Instance {
  serviceId: string;
  proxy: net.Server;
  /** Resolves to the listener's port; concurrent callers share it. */
  port: Promise<number>;
  sockets: Set<net.Socket>;
  backend?: Promise<Backend>;
}

const registries = new WeakMap<Emu, Map<string, Instance>>();
const closing = new WeakMap<Emu, Set<Promise<void>>>();

function registry(emu: Emu): Map<string, Instance> {
  let r = registries.get(emu);
  if (!r) {
    r = new Map();
    registries.set(emu, r);
    emu.on("reset", () => void closeAllDatabases(emu));
    emu.on("service.deleted", (svc: Service) => void closeDatabase(emu, svc.id));
  }
  return r;
}

/** Emulator shutdown waits for every database and socket to close. */
export async function closeAllDatabases(emu: Emu): Promise<void> {
  for (const id of [...(registries.get(emu)?.keys() ?? [])]) void closeDatabase(emu, id);
  await Promise.all([...(closing.get(emu) ?? [])]);
}

/** The first deploy of the service went live: the database exists from then on. */
export function isProvisioned(emu: Emu, svc: Service): boolean {
  const now = emu.clock.now();
  return deploysOf(emu, svc.id).some((d) => { const t = liveAtMs(d); return t !== null && t <= now; });
}

/**
 * The service's running database, for the console and backup routes: 404 for a service that is no
 * database, NOT_SUPPORTED for engines the emulator does not run, NOT_PROVISIONED before the first
 * deploy went live (both 409, with errorCode in the body).
 */
export async function realDatabase(emu: Emu, svc: Service): Promise<PGlite> {
  requireRealEngine(svc);
  if (!isProvisioned(emu, svc)) {
    throw new CodedError(409, "NOT_PROVISIONED", `the database of service ${svc.id} is not provisioned yet: its first deploy has not gone live`);
  }
  try {
    return await database(emu, svc);
  } catch (e) {
    // E.g. PGlite loaded inside jest's module sandbox without --experimental-vm-modules (README).
    throw new CodedError(409, "DATABASE_NOT_RUNNING", `the database of service ${svc.id} could not be started: ${(e as Error).message}`);
  }
}

export function requireRealEngine(svc: Service): void {
  if (!isDatabase(svc.type) || !svc.db) throw notFound("Database for service", svc.id);
  if (svc.type !== "POSTGRES") {
    throw new CodedError(409, "NOT_SUPPORTED", `the emulator runs no ${svc.type} engine; the console, exports and backups work for POSTGRES services only`);
  }
}

/** Opens the service's loopback listener (if not yet open) and records its address on the service. */
export async function listen(emu: Emu, svc: Service): Promise<{ host: string; port: number }> {
  const reg = registry(emu);
  let inst = reg.get(svc.id);
  if (!inst) {
    const proxy = net.createServer();
    const sockets = new Set<net.Socket>();
    // A restart from a state file tries the port the service had before.
    const wanted = svc.db?.endpoint?.port ?? 0;
    inst = { serviceId: svc.id, proxy, port: bind(proxy, wanted).catch(() => bind(proxy, 0)), sockets };
    reg.set(svc.id, inst);
    const me = inst;
    proxy.on("connection", (s) => accept(emu, me, s));
  }
  const endpoint = { host: LOOPBACK, port: await inst.port };
  const row = services(emu).get(svc.id);
  if (row?.db && (row.db.endpoint?.port !== endpoint.port || row.db.endpoint?.host !== endpoint.host)) {
    services(emu).update(svc.id, { db: { ...row.db, endpoint } });
  }
  return endpoint;
}

function bind(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const fail = (e: Error) => reject(e);
    server.once("error", fail);
    server.listen(port, LOOPBACK, () => {
      server.off("error", fail);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** The running database, started on first use. Callers check isProvisioned first. */
export async function database(emu: Emu, svc: Service): Promise<PGlite> {
  await listen(emu, svc);
  const inst = registry(emu).get(svc.id);
  if (!inst) throw new Error("the database was closed while it started");
  inst.backend ??= startBackend(svc).catch((e) => {
    inst.backend = undefined;
    throw e;
  });
  return (await inst.backend).db;
}

async function startBackend(svc: Service): Promise<Backend> {
  // PGlite's Emscripten glue runs `await import("module")`: under jest that needs --experimental-vm-modules.
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create();
  const user = svc.db!.user;
  // PGlite has one session, shared by every connection: it runs as the service's user from here on.
  if (user !== "postgres") {
    await db.exec(`CREATE ROLE ${quoteIdent(user)} LOGIN; GRANT ALL ON SCHEMA public TO ${quoteIdent(user)}; SET ROLE ${quoteIdent(user)};`);
  }
  const inner = new PGLiteSocketServer({ db, host: LOOPBACK, port: 0, maxConnections: 32 });
  await inner.start();
  const port = Number(inner.getServerConn().split(":").pop());
  return { db, inner, port };
}

export function closeDatabase(emu: Emu, serviceId: string): Promise<void> {
  const reg = registries.get(emu);
  const inst = reg?.get(serviceId);
  if (!inst) return Promise.resolve();
  reg!.delete(serviceId);
  let set = closing.get(emu);
  if (!set) closing.set(emu, (set = new Set()));
  const done = shutDown(inst).finally(() => set!.delete(done));
  set.add(done);
  return done;
}

async function shutDown(inst: Instance): Promise<void> {
  for (const s of inst.sockets) s.destroy();
  await inst.port.catch(() => undefined);
  await new Promise<void>((r) => inst.proxy.close(() => r()));
  const backend = await inst.backend?.catch(() => undefined);
  if (backend) {
    await backend.inner.stop().catch(() => undefined);
    await backend.db.close().catch(() => undefined);
  }
}

export const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

// ---- the wire protocol's startup and password exchange ----
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

function accept(emu: Emu, inst: Instance, client: net.Socket): void {
  inst.sockets.add(client);
  client.on("close", () => inst.sockets.delete(client));
  client.on("error", () => client.destroy());
  let buf = Buffer.alloc(0);
  let startup: Buffer | null = null;
  let params: Record<string, string> = {};
  const salt = randomBytes(4);

  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    while (!startup) {
      if (buf.length < 8 || buf.length < buf.readInt32BE(0)) return;
      const len = buf.readInt32BE(0);
      const code = buf.readInt32BE(4);
      const msg = buf.subarray(0, len);
      buf = buf.subarray(len);
      if (code === SSL_REQUEST || code === GSS_REQUEST) { client.write("N"); continue; }
      if (code === CANCEL_REQUEST) return void client.destroy();
      if (code !== PROTOCOL_3) return fatal(client, "08P01", "unsupported frontend protocol");
      params = startupParams(msg);
      const svc = services(emu).get(inst.serviceId);
      if (!svc?.db) return fatal(client, "3D000", `database "${params.database}" does not exist`);
      if (params.user !== svc.db.user) return fatal(client, "28000", `role "${params.user}" does not exist`);
      if ((params.database ?? params.user) !== svc.db.name) return fatal(client, "3D000", `database "${params.database}" does not exist`);
      if (!isProvisioned(emu, svc)) return fatal(client, "57P03", "the database system is starting up");
      startup = msg;
      // AuthenticationMD5Password
      client.write(Buffer.concat([Buffer.from([0x52, 0, 0, 0, 12, 0, 0, 0, 5]), salt]));
    }
    if (buf.length < 5 || buf.length < 1 + buf.readInt32BE(1)) return;
    const len = buf.readInt32BE(1);
    const type = buf[0];
    const body = buf.subarray(5, 1 + len);
    buf = buf.subarray(1 + len);
    client.off("data", onData);
    client.pause();
    const svc = services(emu).get(inst.serviceId);
    const got = body.subarray(0, Math.max(0, body.indexOf(0))).toString("utf8");
    if (type !== 0x70 || !svc?.db || got !== md5Password(svc.db.user, svc.db.password, salt)) {
      return fatal(client, "28P01", `password authentication failed for user "${params.user}"`);
    }
    void handOver(emu, inst, svc, client, startup, buf);
  };
  client.on("data", onData);
}

async function handOver(emu: Emu, inst: Instance, svc: Service, client: net.Socket, startup: Buffer, rest: Buffer) {
  let port: number;
  try {
    await database(emu, svc);
    port = (await inst.backend!).port;
  } catch (e) {
    return fatal(client, "58000", `the database could not be started: ${(e as Error).message}`);
  }
  const upstream = net.connect(port, LOOPBACK);
  inst.sockets.add(upstream);
  upstream.on("close", () => { inst.sockets.delete(upstream); client.destroy(); });
  upstream.on("error", () => upstream.destroy());
  client.on("close", () => upstream.destroy());
  upstream.write(startup);
  if (rest.length) upstream.write(rest);
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}

function startupParams(msg: Buffer): Record<string, string> {
  const parts = msg.subarray(8).toString("utf8").split("\0");
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2) out[parts[i]] = parts[i + 1];
  return out;
}

function md5Password(user: string, password: string, salt: Buffer): string {
  const inner = createHash("md5").update(password + user).digest("hex");
  return "md5" + createHash("md5").update(inner).update(salt).digest("hex");
}

/** An ErrorResponse at FATAL, then the connection closes (as a server refusing a login does). */
function fatal(client: net.Socket, code: string, message: string): void {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, "utf8");
  const head = Buffer.alloc(5);
  head[0] = 0x45;
  head.writeInt32BE(fields.length + 4, 1);
  client.end(Buffer.concat([head, fields]));
}
