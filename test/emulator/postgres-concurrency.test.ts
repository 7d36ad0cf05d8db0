// Databases behave as Postgres users expect under concurrency: a slow statement holds up neither
// HTTP, DNS, another database nor the console; statement_timeout and cancel requests work; a pool
// of 10 connections runs concurrent transactions at read committed; the console sees only
// committed rows; the readiness route reports every part. The emulator runs as its CLI.
import { spawn, type ChildProcess } from "node:child_process";
import { Resolver } from "node:dns/promises";
import net from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { Client, Pool } from "pg";
import { CloudPlatformClient } from "../../provider/client";
import { waitFor } from "../support/helpers";

jest.setTimeout(300_000);

interface Info { baseUrl: string; dnsAddress: string; workspaceId: string; apiKey: string }
let proc: ChildProcess;
let info: Info;
let api: CloudPlatformClient;
const clients: Client[] = [];
const conns: Record<string, any> = {};
const ids: Record<string, string> = {};
let projectId: string;

const pg = async (conn: any) => {
  const c = new Client({ connectionString: conn.url });
  c.on("error", () => undefined);
  clients.push(c);
  await c.connect();
  return c;
};
const timed = async <T>(work: Promise<T>) => {
  const start = performance.now();
  const value = await work;
  return { value, ms: performance.now() - start };
};
/** Resolves once `statement` runs in the database of `conn`, as another session of its user sees it. */
const running = async (conn: any, statement: string) => {
  const watch = await pg(conn);
  // As the login role itself (sessions run as the service's dbUser), which sees its sessions' statements.
  await watch.query("SET ROLE NONE");
  await waitFor(async () => ((await watch.query("SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query = $1", [statement])).rowCount ?? 0) > 0, { what: `${statement} to run` });
};
const query = (db: string, statement: string) => api.post<any>(`/v1/services/${ids[db]}/database/query`, { statement });

beforeAll(async () => {
  proc = spawn(process.execPath, [path.join(__dirname, "../../dist/emulator/cli.js"), "--port", "0", "--speed", "0", "--dns-port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  info = JSON.parse(await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`the emulator exited with ${code}`)));
  }));
  api = new CloudPlatformClient({ apiKey: info.apiKey, baseUrl: info.baseUrl, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
  const p = await api.create<any>(`/v1/workspaces/${info.workspaceId}/projects`, { name: "busy" });
  projectId = p.id;
  const env = await api.create<any>(`/v1/projects/${p.id}/environments`, { name: "production" });
  for (const name of ["a", "b"]) {
    ids[name] = (await api.create<any>(`/v1/environments/${env.id}/services`, { name, type: "POSTGRES" })).id;
    conns[name] = await api.get<any>(`/v1/services/${ids[name]}/connection`);
  }
  // Both services keep the default dbName and dbUser "app": each still has its own database.
  expect([conns.a.database, conns.b.database, conns.a.username, conns.b.username]).toEqual(["app", "app", "app", "app"]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  if (projectId) await api.delete(`/v1/projects/${projectId}`);
  await api?.close();
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    await exited;
  }
});

test("a slow statement holds up neither HTTP, DNS, the other database nor the console", async () => {
  const a = await pg(conns.a);
  const b = await pg(conns.b);
  expect((await a.query("SELECT current_user AS u")).rows).toEqual([{ u: "app" }]);
  await a.query("CREATE TABLE only_in_a (x int)");
  await expect(b.query("SELECT * FROM only_in_a")).rejects.toThrow(/does not exist/);

  // A statement that runs until it is cancelled: everything below must answer while it still runs,
  // however slow the machine (no time bound to race).
  let slowDone = false;
  const slow = a.query("SELECT pg_sleep(600)").catch((e) => e).finally(() => (slowDone = true));
  await running(conns.a, "SELECT pg_sleep(600)");
  const resolver = new Resolver();
  resolver.setServers([info.dnsAddress]);
  const during = await Promise.all([
    api.get("/v1/me"),
    resolver.resolveTxt("nothing-here.example.com").catch((e) => e.code),
    b.query("SELECT 1 AS one"),
    query("a", "SELECT count(*) FROM only_in_a"),
    query("b", "SELECT 2 AS two"),
  ]);
  expect(slowDone).toBe(false);
  expect(during[1]).toBe("ENOTFOUND");
  expect(during[2].rows).toEqual([{ one: 1 }]);
  expect(during[3].rows).toEqual([["0"]]);
  // Then cancelled by another session of the same user, as pg_cancel_backend allows.
  const other = await pg(conns.a);
  await other.query("SET ROLE NONE");
  await other.query("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'");
  expect(await slow).toMatchObject({ code: "57014" });
});

test("statement_timeout and cancel requests stop a statement", async () => {
  const a = await pg(conns.a);
  await a.query("SET statement_timeout = 200");
  const t = await timed(a.query("SELECT pg_sleep(10)").catch((e) => e));
  expect(t.value).toMatchObject({ code: "57014", message: expect.stringContaining("statement timeout") });
  expect(t.ms).toBeLessThan(5_000);
  await expect(query("a", "SET statement_timeout = 100; SELECT pg_sleep(10)")).rejects.toMatchObject({ status: 400, message: expect.stringContaining("statement timeout") });

  // A CancelRequest (what psql sends on Ctrl-C) to the service's address reaches the server.
  const c = await pg(conns.a);
  const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
  const sleeping = c.query("SELECT pg_sleep(10)").catch((e) => e);
  await running(conns.a, "SELECT pg_sleep(10)");
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(80877102, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  const s = net.connect(conns.a.port, conns.a.host, () => s.end(packet));
  const cancelled = await timed(sleeping);
  expect(cancelled.value).toMatchObject({ code: "57014", message: expect.stringContaining("user request") });
  expect(cancelled.ms).toBeLessThan(5_000);
});

test("a pool of 10 connections runs concurrent transactions at read committed; the console sees only committed rows", async () => {
  const a = await pg(conns.a);
  await a.query("CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, 0); CREATE TABLE log (tx int)");
  const pool = new Pool({ connectionString: conns.a.url, max: 10 });
  try {
    const levels = new Set<string>();
    await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const c = await pool.connect();
      try {
        await c.query("BEGIN");
        levels.add((await c.query("SHOW transaction_isolation")).rows[0].transaction_isolation);
        await c.query("INSERT INTO log VALUES ($1)", [i]);
        await c.query("SELECT pg_sleep(0.02)");
        await c.query("UPDATE counter SET n = n + 1 WHERE id = 1");
        await c.query("COMMIT");
      } finally {
        c.release();
      }
    }));
    expect([...levels]).toEqual(["read committed"]);
    expect((await a.query("SELECT n FROM counter")).rows).toEqual([{ n: 40 }]);
    expect((await a.query("SELECT count(*)::int AS n FROM log")).rows).toEqual([{ n: 40 }]);
  } finally {
    await pool.end();
  }

  // Another client's open transaction: invisible to the console until it commits.
  await a.query("BEGIN; INSERT INTO log VALUES (-1)");
  expect((await query("a", "SELECT count(*) FROM log WHERE tx = -1")).rows).toEqual([["0"]]);
  expect((await query("a", "INSERT INTO log VALUES (-2)")).message).toBe("INSERT 0 1");
  await a.query("COMMIT");
  expect((await query("a", "SELECT count(*) FROM log WHERE tx < 0")).rows).toEqual([["2"]]);
});

test("a dbUser that Postgres reserves, or that names its usual superuser, still gets a working database", async () => {
  const env = (await api.get<any>(`/v1/services/${ids.a}`)).environmentId;
  for (const dbUser of ["pg_reader", "postgres"]) {
    const svc = await api.create<any>(`/v1/environments/${env}/services`, { name: `db-${dbUser}`, type: "POSTGRES", dbUser });
    const c = await pg(await api.get<any>(`/v1/services/${svc.id}/connection`));
    const who = (await c.query("SELECT current_user AS u, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS su")).rows[0];
    expect(who.su).toBe(false);
    expect(who.u).toMatch(dbUser === "postgres" ? /^postgres$/ : /^_pg_reader_[0-9a-f]{12}$/);
    await c.query("CREATE TABLE t (x int); INSERT INTO t VALUES (1)");
    const backup = await api.post<any>(`/v1/services/${svc.id}/backups`, {});
    await c.query("DELETE FROM t");
    const restore = await api.post<any>(`/v1/backups/${backup.id}/restore`, {});
    expect(await api.get<any>(`/v1/restores/${restore.id}`)).toMatchObject({ status: "COMPLETED", error: null });
    expect((await api.post<any>(`/v1/services/${svc.id}/database/query`, { statement: "SELECT count(*) FROM t" })).rows).toEqual([["1"]]);
  }
});

test("the readiness route reports HTTP, DNS, the engine and each database", async () => {
  const res = await fetch(`${info.baseUrl}/_emulator/ready`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { ready: boolean; parts: any[] };
  expect(body.ready).toBe(true);
  expect(body.parts).toEqual(expect.arrayContaining([
    expect.objectContaining({ name: "http", ready: true, state: "serving" }),
    expect.objectContaining({ name: "dns", ready: true, address: info.dnsAddress }),
    expect.objectContaining({ name: "postgres", ready: true, state: "ready", engine: "postgres", version: expect.any(String) }),
    expect.objectContaining({ name: "database", serviceId: ids.a, service: "a", ready: true, state: "ready", port: conns.a.port }),
    expect.objectContaining({ name: "database", serviceId: ids.b, service: "b", ready: true, state: "ready", port: conns.b.port }),
  ]));
  expect((await (await fetch(`${info.baseUrl}/_emulator/health`)).json())).toEqual({ ok: true });
});
