// The machine's own PostgreSQL server, run by the emulator as one cluster in <dataDir>/postgres:
// finding the binaries, initdb, starting and stopping the server, superuser sessions. Postgres
// refuses to run as root: as root the server runs as the `postgres` user (or `nobody`), and reaches
// its data directory through an inherited descriptor (/proc/self/fd/3), so the state directory's
// parents need not be open to that user. A watchdog shell stops the server if the emulator dies.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Client, ClientConfig, Pool } from "pg";
import { LOOPBACK } from "./loopback";
import { settlesWithin } from "./postgres-engine";

// pg is loaded when a database is first reached: most emulators never start a Postgres server.
const pg = (): typeof import("pg") => require("pg");

export const ADMIN = "cloudplatform_admin";
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

/** The major version of a server binary (`postgres (PostgreSQL) 15.18 ...` gives "15"). */
function majorVersion(postgres: string): string | undefined {
  const out = spawnSync(postgres, ["--version"], { encoding: "utf8" }).stdout ?? "";
  return /(\d+)(?:\.\d+)?/.exec(out)?.[1];
}

/** A cluster made by another major version needs that version's server, which Debian keeps beside the others. */
function matchingBinaries(bins: Binaries, made: string, root: string): Binaries {
  const have = majorVersion(bins.postgres);
  if (!have || have === made) return bins;
  const other = binariesIn(`/usr/lib/postgresql/${made}/bin`);
  if (other) return other;
  throw new Error(`the database cluster in ${root} was made by PostgreSQL ${made}, and this machine's server is PostgreSQL ${have}: install PostgreSQL ${made}, or point ${ENGINE_ENV} at its bin directory`);
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
  private readonly root: string;
  private readonly user: { uid: number; gid: number } | undefined;

  constructor(private bins: Binaries, private readonly dataDir: string) {
    this.root = path.join(dataDir, "postgres");
    this.user = serverUser(this.root);
  }

  get address() {
    return { host: LOOPBACK, port: this.port };
  }

  async start(): Promise<void> {
    this.state = "starting";
    this.error = undefined;
    try {
      mkdirSync(this.root, { recursive: true, mode: 0o700 });
      if (this.user) chownSync(this.root, this.user.uid, this.user.gid);
      this.adminPassword = this.secret();
      if (!existsSync(path.join(this.root, "data", "PG_VERSION"))) await this.initdb();
      else this.bins = matchingBinaries(this.bins, readFileSync(path.join(this.root, "data", "PG_VERSION"), "utf8").trim(), this.root);
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
      await this.admin?.end().catch(() => undefined);
      this.admin = new (pg().Pool)({ ...this.config("postgres"), max: 3, idleTimeoutMillis: 10_000 });
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
      "-c", `listen_addresses=${LOOPBACK}`, "-c", "unix_socket_directories=",
      // Commits are flushed to disk within a fraction of a second, not before each answer (as the
      // state's journal, within a second); fsync stays on, so a crash of the machine loses at most
      // those and never corrupts the cluster.
      "-c", "synchronous_commit=off", "-c", "wal_writer_delay=200ms", "-c", "shared_buffers=16MB", "-c", "max_connections=200", "-c", "huge_pages=off",
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
    return { host: LOOPBACK, port: this.port, user, password, database, connectionTimeoutMillis: 30_000 };
  }

  /** A new session on one of the cluster's databases, as the superuser unless told otherwise. */
  async connect(database: string, user = ADMIN, password = this.adminPassword): Promise<Client> {
    const c = new (pg().Client)(this.config(database, user, password));
    c.on("error", () => undefined);
    await c.connect();
    return c;
  }

  /** The superuser's pool on the maintenance database, once the server runs. */
  get pool(): Pool {
    if (this.state !== "ready" || !this.admin) throw new Error(`the database server is ${this.state}`);
    return this.admin;
  }

  /** A secret derived from the cluster's own, e.g. a login role's password. */
  derive(label: string): string {
    return createHmac("sha256", this.adminPassword).update(label).digest("base64url");
  }

  /** Statements running now in any session but the asking one. */
  async activeQueries(): Promise<number> {
    if (this.state !== "ready") return 0;
    const r = await this.admin!.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()");
    return r.rows[0].n;
  }

  /** A database as a pg_dump custom-format archive (restore it with pg_restore). */
  async archive(database: string): Promise<Buffer> {
    if (!this.bins.pgDump) throw new Error(`there is no pg_dump in ${this.bins.dir}`);
    const p = spawn(this.bins.pgDump, ["-h", LOOPBACK, "-p", String(this.port), "-U", ADMIN, "-d", database, "-Fc"], {
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
    s.listen(0, LOOPBACK, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
