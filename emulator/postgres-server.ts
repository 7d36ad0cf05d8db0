// One real PostgreSQL cluster (the machine's own `postgres`, run as a child process) serving every
// POSTGRES service: each gets its own database and login role. The login role's session runs as a
// role named after the service's dbUser (`ALTER ROLE ... IN DATABASE ... SET role`), so
// `current_user` is what the user chose although several services may choose the same name.
// Postgres refuses to run as root: as root the server runs as the `postgres` user (or `nobody`),
// and reaches its data directory through an inherited descriptor (/proc/self/fd/3), so the state
// directory's parents need not be open to that user.
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { Client, Pool, type ClientConfig } from "pg";
import { EngineUnavailable, settlesWithin, type Engine, type ScriptResult, type ServiceDb, type SessionOptions, type Sql } from "./postgres-engine";
import { scramVerifier, signIn } from "./postgres-wire";

export const ADMIN = "cloudplatform_admin";
const HOST = "127.0.0.1";
/** The override: `pglite` forces the fallback, a directory names the server's binaries. */
export const ENGINE_ENV = "CLOUDPLATFORM_EMULATOR_POSTGRES";
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

export interface Binaries { dir: string; postgres: string; initdb: string; pgDump: string | null }

const executable = (f: string) => {
  try {
    return statSync(f).isFile() && (statSync(f).mode & 0o111) !== 0;
  } catch {
    return false;
  }
};

function binariesIn(dir: string): Binaries | undefined {
  const at = (name: string) => (executable(path.join(dir, name)) ? path.join(dir, name) : null);
  const postgres = at("postgres");
  const initdb = at("initdb");
  return postgres && initdb ? { dir, postgres, initdb, pgDump: at("pg_dump") } : undefined;
}

/**
 * The server to run: `postgres` on PATH (with the initdb beside the file it links to), else the
 * newest /usr/lib/postgresql/<version>/bin; "pglite" when there is none or when asked for.
 */
export function findServer(env: NodeJS.ProcessEnv = process.env): Binaries | "pglite" {
  const wanted = env[ENGINE_ENV]?.trim();
  if (wanted === "pglite") return "pglite";
  if (wanted) {
    const found = binariesIn(wanted);
    if (!found) throw new Error(`${ENGINE_ENV}=${wanted}: no postgres and initdb in that directory`);
    return found;
  }
  for (const dir of (env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, "postgres");
    if (!executable(file)) continue;
    const found = binariesIn(path.dirname(realpathSync(file))) ?? binariesIn(dir);
    if (found) return found;
  }
  const versions = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").filter((v) => /^\d+$/.test(v)) : [];
  for (const v of versions.sort((a, b) => Number(b) - Number(a))) {
    const found = binariesIn(`/usr/lib/postgresql/${v}/bin`);
    if (found) return found;
  }
  return "pglite";
}

/** The user the server runs as: ours, unless we are root (Postgres refuses root). */
function serverUser(root: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  // A cluster made earlier keeps its owner.
  if (existsSync(root)) {
    const st = statSync(root);
    if (st.uid !== 0) return { uid: st.uid, gid: st.gid };
  }
  const passwd = existsSync("/etc/passwd") ? readFileSync("/etc/passwd", "utf8").split("\n").map((l) => l.split(":")) : [];
  const user = passwd.find((f) => f[0] === "postgres") ?? passwd.find((f) => f[0] === "nobody");
  if (!user) throw new Error("running as root, and there is neither a postgres nor a nobody user to run the database server as");
  return { uid: Number(user[2]), gid: Number(user[3]) };
}

/** A service's database and roles inside the cluster. */
export interface DbNames {
  database: string;
  login: string;
  /** The role sessions run as (the service's dbUser); null when that name is reserved by Postgres. */
  owner: string | null;
  password: string;
}

const hex = (serviceId: string) => serviceId.replace(/-/g, "").slice(0, 12);
const SUFFIX = /_([0-9a-f]{12})$/;
export const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
export const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
/** Names Postgres refuses for a role (or that the cluster's superuser has). */
const reservedRole = (name: string) => name.startsWith("pg_") || ["public", "none", ADMIN].includes(name);

type State = "starting" | "ready" | "failed" | "stopping" | "stopped";

export class Cluster {
  state: State = "stopped";
  error?: string;
  version = "";
  private port = 0;
  private adminPassword = "";
  private proc?: ChildProcess;
  private exited?: Promise<number | null>;
  private admin?: Pool;
  private log: string[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private readonly root: string;
  private readonly user: { uid: number; gid: number } | undefined;

  constructor(private readonly bins: Binaries, private readonly dataDir: string) {
    this.root = path.join(dataDir, "postgres");
    this.user = serverUser(this.root);
  }

  get address() {
    return { host: HOST, port: this.port };
  }

  namesFor(svc: ServiceDb): DbNames {
    const h = hex(svc.id);
    const owner = reservedRole(svc.db.user) ? null : svc.db.user;
    return {
      database: `${svc.db.name.slice(0, 50)}_${h}`,
      login: `${reservedRole(svc.db.user) ? "_" : ""}${svc.db.user.slice(0, 50)}_${h}`,
      owner,
      password: createHmac("sha256", this.adminPassword).update(`login:${h}`).digest("base64url"),
    };
  }

  async start(): Promise<void> {
    this.state = "starting";
    this.error = undefined;
    try {
      mkdirSync(this.root, { recursive: true, mode: 0o700 });
      if (this.user) chownSync(this.root, this.user.uid, this.user.gid);
      this.adminPassword = this.secret();
      if (!existsSync(path.join(this.root, "data", "PG_VERSION"))) await this.initdb();
      await this.waitForStaleServer();
      for (let attempt = 0; ; attempt++) {
        try {
          await this.launch();
          break;
        } catch (e) {
          if (attempt < 3 && /could not bind|already in use/i.test((e as Error).message)) continue;
          throw e;
        }
      }
      this.admin = new Pool({ ...this.config("postgres"), max: 3, idleTimeoutMillis: 10_000 });
      this.admin.on("error", () => undefined);
      const r = await this.admin.query<{ v: string }>("SELECT current_setting('server_version') AS v");
      this.version = r.rows[0].v;
      // Nobody but the emulator's own sessions connects to the maintenance databases.
      await this.admin.query("REVOKE CONNECT ON DATABASE postgres, template1 FROM PUBLIC");
      this.state = "ready";
    } catch (e) {
      this.state = "failed";
      this.error = (e as Error).message;
      await this.kill();
      throw e;
    }
  }

  /** The admin password, made once per data directory and kept beside the cluster (not inside it). */
  private secret(): string {
    const file = path.join(this.dataDir, "postgres-admin");
    if (existsSync(file)) return readFileSync(file, "utf8").trim();
    const s = randomBytes(24).toString("base64url");
    writeFileSync(file, s + "\n", { mode: 0o600 });
    return s;
  }

  /** A path as the server process sees it: through its inherited descriptor when run as another user. */
  private serverPath(rel: string): string {
    return this.user ? `/proc/self/fd/3/${rel}` : path.join(this.root, rel);
  }

  private spawnServer(file: string, args: string[], stdin: "pipe" | "ignore"): ChildProcess {
    const fd = this.user ? openSync(this.root, "r") : undefined;
    try {
      return spawn(file, args, {
        cwd: this.user ? "/" : this.root,
        ...(this.user ? { uid: this.user.uid, gid: this.user.gid } : {}),
        stdio: fd === undefined ? [stdin, "pipe", "pipe"] : [stdin, "pipe", "pipe", fd],
        detached: true,
        env: { ...process.env, LC_ALL: "C", LANG: "C" },
      });
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  private async initdb(): Promise<void> {
    rmSync(path.join(this.root, "data"), { recursive: true, force: true });
    const pwfile = path.join(this.root, "pwfile");
    writeFileSync(pwfile, this.adminPassword + "\n", { mode: 0o600 });
    if (this.user) chownSync(pwfile, this.user.uid, this.user.gid);
    try {
      const p = this.spawnServer(this.bins.initdb, [
        "-D", this.serverPath("data"), "-U", ADMIN, `--pwfile=${this.serverPath("pwfile")}`, "-A", "scram-sha-256",
        "-E", "UTF8", "--no-locale", "--no-sync",
      ], "ignore");
      const out: Buffer[] = [];
      p.stdout!.on("data", (b) => out.push(b));
      p.stderr!.on("data", (b) => out.push(b));
      const code = await new Promise<number | null>((resolve, reject) => {
        p.once("error", reject);
        p.once("exit", resolve);
      });
      if (code !== 0) throw new Error(`initdb failed (exit ${code}): ${Buffer.concat(out).toString("utf8").trim().split("\n").slice(-5).join(" ")}`);
    } finally {
      rmSync(pwfile, { force: true });
    }
  }

  /** A server left by an emulator that was killed shuts down on its own (its watchdog saw us go); wait for it. */
  private async waitForStaleServer(): Promise<void> {
    const pidFile = path.join(this.root, "data", "postmaster.pid");
    const deadline = Date.now() + 15_000;
    while (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
      if (!alive(pid)) return;
      if (Date.now() > deadline) throw new Error(`the database cluster in ${this.root} is in use by another server (pid ${pid}): is another emulator running on the same data directory?`);
      await sleep(100);
    }
  }

  private async launch(): Promise<void> {
    this.port = await freePort();
    this.log = [];
    // The shell starts the server, then waits on its stdin: when the emulator goes away, even by
    // SIGKILL, the pipe closes and the server gets a fast shutdown instead of living on.
    const watchdog = [
      "exec 4<&0 </dev/null",
      '"$@" 4<&- >&2 &',
      "pid=$!",
      "( cat <&4 >/dev/null; kill -INT $pid 2>/dev/null ) &",
      "watcher=$!",
      'wait "$pid"; status=$?',
      "kill $watcher 2>/dev/null",
      "exit $status",
    ].join("\n");
    const p = this.spawnServer("/bin/sh", ["-c", watchdog, "postgres-watchdog", this.bins.postgres,
      "-D", this.serverPath("data"), "-p", String(this.port),
      "-c", `listen_addresses=${HOST}`, "-c", "unix_socket_directories=",
      // Commits reach the OS before they are acknowledged, so a killed emulator loses none; only
      // a crash of the machine itself could (the emulator does not fsync).
      "-c", "fsync=off", "-c", "shared_buffers=16MB", "-c", "max_connections=200", "-c", "huge_pages=off",
      "-c", "logging_collector=off", "-c", "log_min_error_statement=panic", "-c", "password_encryption=scram-sha-256",
    ], "pipe");
    this.proc = p;
    p.stdin!.on("error", () => undefined);
    p.stdout!.resume();
    this.exited = new Promise((resolve) => p.once("exit", (code) => resolve(code)));
    void this.exited.then(() => {
      p.stdin!.destroy();
      if (this.state === "ready") {
        this.state = "failed";
        this.error = `the database server stopped: ${this.log.slice(-3).join(" ")}`;
      }
    });
    await new Promise<void>((resolve, reject) => {
      let pending = "";
      const timer = setTimeout(() => reject(new Error(`the database server did not start within ${START_TIMEOUT_MS / 1000} s: ${this.log.slice(-5).join(" ")}`)), START_TIMEOUT_MS);
      p.stderr!.on("data", (b: Buffer) => {
        pending += b.toString("utf8");
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines) {
          this.log.push(line);
          if (this.log.length > 50) this.log.shift();
          if (line.includes("ready to accept connections")) {
            clearTimeout(timer);
            resolve();
          }
        }
      });
      void this.exited!.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the database server exited (${code}): ${this.log.filter((l) => /FATAL|ERROR|could not/.test(l)).slice(-3).join(" ") || this.log.slice(-3).join(" ")}`));
      });
    });
  }

  config(database: string, user = ADMIN, password = this.adminPassword): ClientConfig {
    return { host: HOST, port: this.port, user, password, database, connectionTimeoutMillis: 30_000 };
  }

  /** A new session on a service's database: as its login role (whose session runs as the owner), or as the admin. */
  async connect(n: DbNames, as: "user" | "admin"): Promise<Client> {
    const c = new Client(as === "user" ? this.config(n.database, n.login, n.password) : this.config(n.database));
    c.on("error", () => undefined);
    await c.connect();
    return c;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Creates (or completes) the service's database and roles; idempotent. */
  ensureDatabase(n: DbNames): Promise<void> {
    return this.serial(async () => {
      const admin = this.admin!;
      const verifier = await scramVerifier(n.password);
      const role = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [n.login]);
      await admin.query(`${role.rowCount ? "ALTER" : "CREATE"} ROLE ${ident(n.login)} LOGIN PASSWORD ${literal(verifier)}`);
      if (n.owner) {
        const owner = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [n.owner]);
        if (!owner.rowCount) await admin.query(`CREATE ROLE ${ident(n.owner)} NOLOGIN`);
        await admin.query(`GRANT ${ident(n.owner)} TO ${ident(n.login)}`);
      }
      const db = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [n.database]);
      if (!db.rowCount) await admin.query(`CREATE DATABASE ${ident(n.database)} OWNER ${ident(n.login)}`);
      await admin.query(`REVOKE ALL ON DATABASE ${ident(n.database)} FROM PUBLIC`);
      await admin.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${ident(n.database)} TO ${ident(n.login)}`);
      if (n.owner) {
        await admin.query(`GRANT CREATE, TEMPORARY ON DATABASE ${ident(n.database)} TO ${ident(n.owner)}`);
        await admin.query(`ALTER ROLE ${ident(n.login)} IN DATABASE ${ident(n.database)} SET role = ${literal(n.owner)}`);
        const c = await this.connect(n, "admin");
        try {
          await c.query(`GRANT ALL ON SCHEMA public TO ${ident(n.owner)}`);
        } finally {
          await c.end();
        }
      }
    });
  }

  /** Removes a service's database (its sessions are ended) and its roles. */
  dropDatabase(n: DbNames): Promise<void> {
    return this.serial(async () => {
      if (this.state !== "ready") return;
      await this.admin!.query(`DROP DATABASE IF EXISTS ${ident(n.database)} WITH (FORCE)`);
      await this.admin!.query(`DROP ROLE IF EXISTS ${ident(n.login)}`);
      if (n.owner) await this.dropUnusedOwners([n.owner]);
    });
  }

  /** Drops every database and login role whose service is gone (`live` holds the services' ids). */
  collect(live: string[]): Promise<void> {
    return this.serial(async () => {
      if (this.state !== "ready") return;
      const keep = new Set(live.map(hex));
      const gone = (name: string) => { const m = SUFFIX.exec(name); return !!m && !keep.has(m[1]); };
      const dbs = await this.admin!.query<{ name: string }>("SELECT datname AS name FROM pg_database WHERE NOT datistemplate AND datname <> 'postgres'");
      for (const d of dbs.rows.filter((r) => gone(r.name))) await this.admin!.query(`DROP DATABASE IF EXISTS ${ident(d.name)} WITH (FORCE)`);
      const roles = await this.admin!.query<{ name: string }>("SELECT rolname AS name FROM pg_roles WHERE rolcanlogin AND NOT rolsuper AND rolname NOT LIKE 'pg\\_%'");
      for (const r of roles.rows.filter((x) => gone(x.name))) await this.admin!.query(`DROP ROLE IF EXISTS ${ident(r.name)}`);
      const owners = await this.admin!.query<{ name: string }>("SELECT rolname AS name FROM pg_roles WHERE NOT rolcanlogin AND NOT rolsuper AND rolname NOT LIKE 'pg\\_%'");
      await this.dropUnusedOwners(owners.rows.map((r) => r.name));
    });
  }

  private async dropUnusedOwners(names: string[]): Promise<void> {
    for (const name of names) {
      const members = await this.admin!.query("SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid WHERE r.rolname = $1", [name]);
      if (members.rowCount) continue;
      // Still owning something somewhere (it cannot, once its services are gone): leave it.
      await this.admin!.query(`DROP ROLE IF EXISTS ${ident(name)}`).catch(() => undefined);
    }
  }

  /** Statements running now in any session but the asking one. */
  async activeQueries(): Promise<number> {
    if (this.state !== "ready") return 0;
    const r = await this.admin!.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()");
    return r.rows[0].n;
  }

  /** The database as a pg_dump custom-format archive (restore it with pg_restore). */
  async archive(n: DbNames): Promise<Buffer> {
    if (!this.bins.pgDump) throw new Error(`there is no pg_dump in ${this.bins.dir}`);
    const p = spawn(this.bins.pgDump, ["-h", HOST, "-p", String(this.port), "-U", ADMIN, "-d", n.database, "-Fc"], {
      env: { ...process.env, PGPASSWORD: this.adminPassword }, stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on("data", (b) => out.push(b));
    p.stderr.on("data", (b) => err.push(b));
    const code = await new Promise<number | null>((resolve, reject) => {
      p.once("error", reject);
      p.once("close", resolve);
    });
    if (code !== 0) throw new Error(`pg_dump failed: ${Buffer.concat(err).toString("utf8").trim()}`);
    return Buffer.concat(out);
  }

  /** A fast shutdown (open transactions roll back, then a checkpoint), escalating if it hangs. */
  async stop(): Promise<void> {
    if (!this.proc) return;
    this.state = "stopping";
    await this.admin?.end().catch(() => undefined);
    this.proc.stdin!.end();
    if (!(await settlesWithin(this.exited!, STOP_TIMEOUT_MS))) await this.kill();
    this.proc = undefined;
    this.state = "stopped";
  }

  private async kill(): Promise<void> {
    const p = this.proc;
    if (!p?.pid || p.exitCode !== null || p.signalCode !== null) return;
    for (const sig of ["SIGQUIT", "SIGKILL"] as const) {
      try {
        process.kill(-p.pid, sig);
      } catch {
        return;
      }
      if (await settlesWithin(this.exited!, 3_000)) return;
    }
  }
}

/** A process with that id runs, and (where /proc tells) it is a postgres, not a process that reused the id. */
function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
  } catch {
    return !existsSync("/proc/self");
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, HOST, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

// ---- the Engine over the cluster ----
const asText = { getTypeParser: () => (v: string) => v } as unknown as ClientConfig["types"];

/** A pg client as an Sql session. */
export function sqlOver(c: Client, owner?: string): Sql {
  return {
    owner,
    query: async <T>(text: string, params?: unknown[]) => (await c.query(text, params)).rows as T[],
    textRows: async (text, params) => (await c.query({ text, values: params, rowMode: "array", types: asText })).rows,
    script: async (text) => {
      const notices: string[] = [];
      const onNotice = (n: { message?: string }) => notices.push(n.message ?? "");
      c.on("notice", onNotice);
      try {
        const out = await c.query({ text, rowMode: "array", types: asText });
        const results = (Array.isArray(out) ? out : [out]) as unknown as { command: string | null; rowCount: number | null; fields: { name: string }[]; rows: (string | null)[][] }[];
        return {
          results: results.map((r): ScriptResult => ({ command: r.command || null, rowCount: r.rowCount, fields: r.fields.map((f) => f.name), rows: r.rows })),
          notices,
        };
      } finally {
        c.off("notice", onNotice);
      }
    },
  };
}

export function serverEngine(bins: Binaries, dataDir: string, live: () => string[]): Engine {
  const cluster = new Cluster(bins, dataDir);
  let started: Promise<void> | undefined;
  const up = async () => {
    // A server that stopped on its own (killed, crashed) starts again on the next use.
    if (cluster.state === "failed") started = undefined;
    started ??= cluster.start().then(() => cluster.collect(live())).catch((e) => {
      started = undefined;
      throw e;
    });
    try {
      await started;
    } catch (e) {
      throw new EngineUnavailable(`the database server could not be started: ${(e as Error).message}`);
    }
    if (cluster.state !== "ready") throw new EngineUnavailable(cluster.error ?? `the database server is ${cluster.state}`);
  };
  const open = async (n: DbNames, as: SessionOptions["as"]) => {
    await up();
    try {
      return await cluster.connect(n, as);
    } catch (e) {
      throw new EngineUnavailable(`could not connect to the database: ${(e as Error).message}`);
    }
  };
  return {
    kind: "postgres",
    status: () => ({ state: cluster.state, error: cluster.error, version: cluster.version || undefined }),
    ensure: async (svc) => {
      await up();
      await cluster.ensureDatabase(cluster.namesFor(svc));
    },
    upstream: async (svc, params) => {
      await up();
      const n = cluster.namesFor(svc);
      const socket = net.connect(cluster.address.port, cluster.address.host);
      socket.setNoDelay(true);
      const rest = await signIn(socket, { ...params, user: n.login, database: n.database }, n.password);
      return { socket, rest };
    },
    cancel: (packet) => {
      if (cluster.state !== "ready") return;
      const s = net.connect(cluster.address.port, cluster.address.host, () => s.end(packet));
      s.on("error", () => s.destroy());
    },
    session: async (svc, opts, fn) => {
      await up();
      const n = cluster.namesFor(svc);
      const c = await open(n, opts.as);
      const sql = sqlOver(c, opts.as === "admin" ? (n.owner ?? n.login) : undefined);
      try {
        if (!opts.snapshot) return await fn(sql);
        await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const out = await fn(sql);
        await c.query("COMMIT");
        return out;
      } finally {
        await c.end().catch(() => undefined);
      }
    },
    archive: async (svc) => {
      await up();
      return { content: await cluster.archive(cluster.namesFor(svc)), extension: "dump", contentType: "application/octet-stream" };
    },
    drop: async (svc) => {
      if (cluster.state === "ready") await cluster.dropDatabase(cluster.namesFor(svc));
    },
    collect: async (ids) => {
      await up();
      await cluster.collect(ids);
    },
    activeQueries: () => cluster.activeQueries(),
    stop: async () => {
      await started?.catch(() => undefined);
      await cluster.stop();
    },
  };
}
