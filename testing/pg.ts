// A Postgres database service on the worker's emulator, and `pg` connections to it: the emulator
// runs a real Postgres-compatible listener on loopback for each POSTGRES service.
import type { Client as PgClient } from "pg";
import { api, ApiError } from "./api";
import { ENV, required } from "./env";

export interface Database {
  projectId: string;
  environmentId: string;
  serviceId: string;
  /** postgresql://user:password@127.0.0.1:port/name */
  url: string;
}

/** Makes a project, an environment and a POSTGRES service in it; resolves once it accepts connections. */
export async function createDatabase(name = "db", opts: { timeoutMs?: number } = {}): Promise<Database> {
  const project = await api<{ id: string }>("POST", `/v1/workspaces/${required(ENV.workspaceId)}/projects`, { name: `${name}-project` });
  const env = await api<{ id: string }>("POST", `/v1/projects/${project.id}/environments`, { name: "test" });
  const svc = await api<{ id: string }>("POST", `/v1/environments/${env.id}/services`, { name, type: "POSTGRES" });
  return { projectId: project.id, environmentId: env.id, serviceId: svc.id, url: await databaseUrl(svc.id, opts) };
}

/**
 * The connection URL of a database service, from GET /v1/services/{id}/connection, polling while the
 * service provisions (instant at speed 0, but its listener opens asynchronously).
 */
export async function databaseUrl(serviceId: string, opts: { timeoutMs?: number } = {}): Promise<string> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    try {
      const c = await api<{ url: string; host: string }>("GET", `/v1/services/${serviceId}/connection`);
      if (!c.host.endsWith(".internal")) return c.url;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404) || Date.now() >= deadline) throw err;
    }
    if (Date.now() >= deadline) throw new Error(`database service ${serviceId} has no loopback listener after ${opts.timeoutMs ?? 10_000} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A connected `pg` Client for a database service (its id) or a connection URL; end() it when done. */
export async function connectDatabase(serviceIdOrUrl: string): Promise<PgClient> {
  const url = /^postgres(ql)?:\/\//.test(serviceIdOrUrl) ? serviceIdOrUrl : await databaseUrl(serviceIdOrUrl);
  // Loaded on use: an app that never asks for a database does not load pg.
  const { Client } = (await import("pg")) as typeof import("pg");
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}
