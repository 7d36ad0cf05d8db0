// What serves POSTGRES services' databases: a real PostgreSQL cluster (postgres-server.ts) or, where
// the machine has none, PGlite in one worker thread per database (postgres-pglite.ts). The service
// listeners, the console and the backups talk to either through these two interfaces.
import type net from "node:net";
import type { DatabaseSettings } from "./models/lifecycle";

/** One session on a service's database. */
export interface Sql {
  /** One statement; ints, floats and booleans parsed, rows as objects. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** One statement; every value in Postgres' text form (null for NULL), rows as arrays. */
  textRows(text: string, params?: unknown[]): Promise<(string | null)[][]>;
  /** Several statements in one go (the simple query protocol): every result, text values, and the notices raised. */
  script(text: string): Promise<{ results: ScriptResult[]; notices: string[] }>;
  /** In an admin session, the role that should own what it creates for the service (none: the session's own). */
  readonly owner?: string;
}

export interface ScriptResult {
  command: string | null;
  rowCount: number | null;
  fields: string[];
  rows: (string | null)[][];
}

export interface ServiceDb {
  id: string;
  db: Pick<DatabaseSettings, "name" | "user">;
}

export interface SessionOptions {
  /** "user": the service's own database user; "admin": a superuser session on the same database. */
  as: "user" | "admin";
  /** Run in one REPEATABLE READ, read-only transaction, so every statement sees the same data. */
  snapshot?: boolean;
}

export type EngineState = "stopped" | "starting" | "ready" | "failed" | "stopping";

export interface Engine {
  readonly kind: "postgres" | "pglite";
  /** The engine as a whole (the cluster, or the PGlite workers' host). */
  status(): { state: EngineState; error?: string; version?: string };
  /** Starts what the service's database needs and creates it if it is new; idempotent. */
  ensure(svc: ServiceDb): Promise<void>;
  /** A connection to the service's database, signed in; `rest` is what the server sent after AuthenticationOk. */
  upstream(svc: ServiceDb, params: Record<string, string>): Promise<{ socket: net.Socket; rest: Buffer }>;
  /** Passes a CancelRequest on to the server. */
  cancel(packet: Buffer): void;
  session<T>(svc: ServiceDb, opts: SessionOptions, fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** The engine's own archive of the database. */
  archive(svc: ServiceDb): Promise<{ content: Buffer; extension: string; contentType: string }>;
  /** Deletes the service's database and everything in it. */
  drop(svc: ServiceDb): Promise<void>;
  /** Deletes the databases of services that no longer exist (asking which do when it runs). */
  collect(): Promise<void>;
  /** Statements running now, for a shutdown that lets them finish. */
  activeQueries(): Promise<number>;
  stop(): Promise<void>;
}

/** The engine could not be reached (not a failure of the statement it was asked to run). */
export class EngineUnavailable extends Error {}

/** Whether `work` settles within `ms`; the timer does not outlive it. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
