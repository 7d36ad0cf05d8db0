// The fallback engine, for machines without a PostgreSQL server: one PGlite per database, each in
// its own worker thread (pglite-worker.ts) with its data in <dataDir>/pglite/<service id>. A slow
// statement holds up only its own database; but PGlite has a single session, so the connections to
// one database share it (see the README for what that means).
import { existsSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { EngineUnavailable, settlesWithin, type Engine, type EngineState, type ServiceDb, type Sql } from "./postgres-engine";
import { LOOPBACK } from "./loopback";
import { signIn } from "./postgres-wire";

interface Pending { resolve: (v: unknown) => void; reject: (e: Error) => void }

class Database {
  private next = 1;
  private pending = new Map<number, Pending>();
  private worker?: Worker;
  /** The port its wire-protocol server listens on, once it runs. */
  readonly ready: Promise<number>;
  private exited: Promise<void>;

  constructor(starting: Promise<Worker> | Worker) {
    const started = Promise.resolve(starting);
    this.ready = started.then((worker) => new Promise<number>((resolve, reject) => {
      this.worker = worker;
      worker.on("message", (m: { id?: number; ok?: boolean; result?: unknown; error?: { message: string; code?: string }; ready?: boolean; port?: number; failed?: string }) => {
        if (m.ready) return resolve(m.port!);
        if (m.failed) return reject(new Error(m.failed));
        const p = this.pending.get(m.id!);
        if (!p) return;
        this.pending.delete(m.id!);
        if (m.ok) p.resolve(m.result);
        else p.reject(Object.assign(new Error(m.error!.message), { code: m.error!.code }));
      });
      worker.once("error", reject);
    }));
    this.ready.catch(() => undefined);
    this.exited = started.then((worker) => new Promise<void>((resolve) => worker.once("exit", () => {
      for (const p of this.pending.values()) p.reject(new EngineUnavailable("the database's worker stopped"));
      this.pending.clear();
      resolve();
    })), () => undefined);
  }

  /** Only once `ready` resolved. */
  call<T>(op: string, text?: string, params?: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = this.next++;
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker!.postMessage({ id, op, text, params });
    });
  }

  async close(): Promise<void> {
    // A clean close (PGlite writes its last pages), unless the worker is stuck in a statement.
    if ((await this.ready.then(() => true, () => false)) && this.worker) {
      void this.call("close").catch(() => undefined);
      await settlesWithin(this.exited, 10_000);
    }
    await this.worker?.terminate();
  }
}

/** Makes a new data directory in a thread of its own, which then ends. */
async function initialise(dataDir: string): Promise<void> {
  const w = new Worker(workerScript(), { workerData: { dataDir, user: "postgres", initOnly: true } });
  const made = new Promise<void>((resolve, reject) => {
    w.on("message", (m: { ready?: boolean; failed?: string }) => (m.failed ? reject(new Error(m.failed)) : resolve()));
    w.once("error", reject);
    w.once("exit", () => reject(new Error("the database's first start ended early")));
  });
  try {
    await made;
  } finally {
    await w.terminate();
  }
}

/** The worker's script: beside this file once built; from dist/ when this file runs as TypeScript (jest). */
function workerScript(): string {
  return __filename.endsWith(".ts") ? path.resolve(__dirname, "../dist/emulator/pglite-worker.js") : path.join(__dirname, "pglite-worker.js");
}

export function pgliteEngine(dataDir: string, live: () => string[]): Engine {
  const root = path.join(dataDir, "pglite");
  const dbs = new Map<string, Database>();
  let state: EngineState = "ready";
  let collected = false;

  const close = async (id: string) => {
    const d = dbs.get(id);
    dbs.delete(id);
    await d?.close();
  };
  /** Databases of services that no longer exist go. */
  const collect = async () => {
    collected = true;
    const keep = new Set(live());
    for (const id of [...dbs.keys()].filter((x) => !keep.has(x))) await close(id);
    for (const name of existsSync(root) ? readdirSync(root) : []) if (!keep.has(name)) rmSync(path.join(root, name), { recursive: true, force: true });
  };
  const open = (svc: ServiceDb): Database => {
    if (!collected) void collect();
    let d = dbs.get(svc.id);
    if (!d) {
      const dataDir = path.join(root, svc.id);
      const start = () => new Worker(workerScript(), { workerData: { dataDir, user: svc.db.user } });
      d = new Database(existsSync(path.join(dataDir, "PG_VERSION")) ? start() : initialise(dataDir).then(start));
      dbs.set(svc.id, d);
      const mine = d;
      // A database that failed to start is tried again on its next use.
      d.ready.catch(() => { if (dbs.get(svc.id) === mine) dbs.delete(svc.id); });
    }
    return d;
  };
  const running = async (svc: ServiceDb): Promise<Database> => {
    const d = open(svc);
    try {
      await d.ready;
    } catch (e) {
      throw new EngineUnavailable(`the database could not be started: ${(e as Error).message}`);
    }
    return d;
  };

  return {
    kind: "pglite",
    status: () => ({ state }),
    ensure: async (svc) => void (await running(svc)),
    upstream: async (svc, params) => {
      const port = await (await running(svc)).ready;
      const socket = net.connect(port, LOOPBACK);
      socket.setNoDelay(true);
      // PGlite's socket server asks for no password.
      return { socket, rest: await signIn(socket, { ...params, user: svc.db.user, database: "postgres" }, "") };
    },
    cancel: () => undefined,
    session: async (svc, _opts, fn) => {
      const d = await running(svc);
      const sql: Sql = {
        query: (text, params) => d.call("query", text, params),
        textRows: (text, params) => d.call("textRows", text, params),
        script: (text) => d.call("script", text),
      };
      return fn(sql);
    },
    archive: async (svc) => {
      const d = await running(svc);
      return { content: Buffer.from(await d.call<Uint8Array>("archive")), extension: "tar.gz", contentType: "application/gzip" };
    },
    drop: async (svc) => {
      await close(svc.id);
      rmSync(path.join(root, svc.id), { recursive: true, force: true });
    },
    collect,
    // A worker answers a ping only between statements: waiting for every ping waits out the running ones.
    activeQueries: async () => {
      await Promise.all([...dbs.values()].map((d) => d.ready.then(() => d.call("ping"), () => undefined)));
      return 0;
    },
    stop: async () => {
      state = "stopping";
      await Promise.all([...dbs.keys()].map(close));
      state = "stopped";
    },
  };
}
