// The real server as an Engine: one cluster (postgres-cluster.ts) serving every POSTGRES service,
// each with its own database and login role. The login role's sessions run as a role named after
// the service's dbUser (`ALTER ROLE ... IN DATABASE ... SET role`), so `current_user` is what the
// user chose although several services may choose the same name; no role reaches another
// service's database. Passwords are derived from the cluster's secret and stored as SCRAM verifiers.
import net from "node:net";
import type { Client, ClientConfig } from "pg";
import { ADMIN, type Binaries, Cluster } from "./postgres-cluster";
import { EngineUnavailable, type Engine, type ScriptResult, type ServiceDb, type SessionOptions, type Sql } from "./postgres-engine";
import { quoteIdent as ident, quoteLiteral as literal } from "./postgres-sql";
import { scramVerifier, signIn } from "./postgres-wire";

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
/** Names Postgres refuses for a role (or that the cluster's superuser has). */
const reservedRole = (name: string) => name.startsWith("pg_") || ["public", "none", ADMIN].includes(name);

/** Creates and drops services' databases and roles, one change at a time. */
class Catalog {
  private queue: Promise<unknown> = Promise.resolve();
  constructor(private readonly cluster: Cluster) {}

  namesFor(svc: ServiceDb): DbNames {
    const h = hex(svc.id);
    const owner = reservedRole(svc.db.user) ? null : svc.db.user;
    return {
      database: `${svc.db.name.slice(0, 50)}_${h}`,
      login: `${reservedRole(svc.db.user) ? "_" : ""}${svc.db.user.slice(0, 50)}_${h}`,
      owner,
      password: this.cluster.derive(`login:${h}`),
    };
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Creates (or completes) the service's database and roles; idempotent. */
  ensureDatabase(n: DbNames): Promise<void> {
    return this.serial(async () => {
      const admin = this.cluster.pool;
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
        const c = await this.cluster.connect(n.database);
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
      if (this.cluster.state !== "ready") return;
      await this.cluster.pool.query(`DROP DATABASE IF EXISTS ${ident(n.database)} WITH (FORCE)`);
      await this.cluster.pool.query(`DROP ROLE IF EXISTS ${ident(n.login)}`);
      if (n.owner) await this.dropUnusedOwners([n.owner]);
    });
  }

  /** Drops every database and login role whose service is gone (`live` lists the services' ids, when this runs). */
  collect(live: () => string[]): Promise<void> {
    return this.serial(async () => {
      if (this.cluster.state !== "ready") return;
      const keep = new Set(live().map(hex));
      const gone = (name: string) => { const m = SUFFIX.exec(name); return !!m && !keep.has(m[1]); };
      const dbs = await this.cluster.pool.query<{ name: string }>("SELECT datname AS name FROM pg_database WHERE NOT datistemplate AND datname <> 'postgres'");
      for (const d of dbs.rows.filter((r) => gone(r.name))) await this.cluster.pool.query(`DROP DATABASE IF EXISTS ${ident(d.name)} WITH (FORCE)`);
      const roles = await this.cluster.pool.query<{ name: string }>("SELECT rolname AS name FROM pg_roles WHERE rolcanlogin AND NOT rolsuper AND rolname NOT LIKE 'pg\\_%'");
      for (const r of roles.rows.filter((x) => gone(x.name))) await this.cluster.pool.query(`DROP ROLE IF EXISTS ${ident(r.name)}`);
      const owners = await this.cluster.pool.query<{ name: string }>("SELECT rolname AS name FROM pg_roles WHERE NOT rolcanlogin AND NOT rolsuper AND rolname NOT LIKE 'pg\\_%'");
      await this.dropUnusedOwners(owners.rows.map((r) => r.name));
    });
  }

  private async dropUnusedOwners(names: string[]): Promise<void> {
    for (const name of names) {
      const members = await this.cluster.pool.query("SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid WHERE r.rolname = $1", [name]);
      if (members.rowCount) continue;
      // Still owning something somewhere (it cannot, once its services are gone): leave it.
      await this.cluster.pool.query(`DROP ROLE IF EXISTS ${ident(name)}`).catch(() => undefined);
    }
  }
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
  const catalog = new Catalog(cluster);
  let started: Promise<void> | undefined;
  const up = async () => {
    // A server that stopped on its own (killed, crashed) starts again on the next use.
    if (cluster.state === "failed") started = undefined;
    started ??= cluster.start().then(() => catalog.collect(live)).catch((e) => {
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
      return await (as === "user" ? cluster.connect(n.database, n.login, n.password) : cluster.connect(n.database));
    } catch (e) {
      throw new EngineUnavailable(`could not connect to the database: ${(e as Error).message}`);
    }
  };
  return {
    kind: "postgres",
    status: () => ({ state: cluster.state, error: cluster.error, version: cluster.version || undefined }),
    ensure: async (svc) => {
      await up();
      await catalog.ensureDatabase(catalog.namesFor(svc));
    },
    upstream: async (svc, params) => {
      await up();
      const n = catalog.namesFor(svc);
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
      const n = catalog.namesFor(svc);
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
      return { content: await cluster.archive(catalog.namesFor(svc).database), extension: "dump", contentType: "application/octet-stream" };
    },
    drop: async (svc) => {
      if (cluster.state === "ready") await catalog.dropDatabase(catalog.namesFor(svc));
    },
    collect: async () => {
      await up();
      await catalog.collect(live);
    },
    activeQueries: () => cluster.activeQueries(),
    stop: async () => {
      await started?.catch(() => undefined);
      await cluster.stop();
    },
  };
}
