// A POSTGRES service backed by a real Postgres (the machine's PostgreSQL server, which `make test`
// installs): the pg client connects to the address the connection route returns; the console,
// exports, backups and restores work on that data. The emulator runs as its CLI in a child process,
// as users run it. Restarts and shutdown: postgres-durability.test.ts; concurrency:
// postgres-concurrency.test.ts; the PGlite fallback: postgres-fallback.test.ts.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { createInterface } from "node:readline";
import path from "node:path";
import { Client } from "pg";
import { CloudPlatformClient } from "../../provider/client";

jest.setTimeout(180_000);

interface Emulator { baseUrl: string; workspaceId: string; apiKey: string; keys: Record<string, string> }
const procs: ChildProcess[] = [];
/** The emulator's CLI in a child process; resolves with the line it prints. */
async function startCli(...args: string[]): Promise<{ info: Emulator; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [path.join(__dirname, "../../dist/emulator/cli.js"), "--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  procs.push(proc);
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`the emulator exited with ${code}`)));
  });
  return { info: JSON.parse(first), proc };
}
async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGTERM");
  await exited;
}

let emu: Emulator;
let api: CloudPlatformClient;
const clients: Client[] = [];
const apis: CloudPlatformClient[] = [];
const client = (key = emu.apiKey, baseUrl = emu.baseUrl) => {
  const c = new CloudPlatformClient({ apiKey: key, baseUrl, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
  apis.push(c);
  return c;
};
beforeAll(async () => {
  emu = (await startCli("--speed", "1")).info;
  api = client();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await Promise.all(apis.map((c) => c.close()));
  await Promise.all(procs.map(stop));
});

const control = async (method: string, route: string, body?: unknown) => {
  const res = await fetch(`${emu.baseUrl}/_emulator${route}`, { method, headers: method === "GET" ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`control ${route}: ${res.status}`);
  return res.json() as Promise<any>;
};
const leftovers = async () => Object.fromEntries(Object.entries((await control("GET", "/state")).counts as Record<string, number>).filter(([, n]) => n > 0));

const advance = (ms: number) => control("POST", "/time", { advanceMs: ms });
const pg = (conn: any, password = conn.password) => {
  const c = new Client({ host: conn.host, port: conn.port, user: conn.username, database: conn.database, password });
  c.on("error", () => undefined);
  clients.push(c);
  return c;
};
const download = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), type: res.headers.get("content-type") };
};

test("a POSTGRES service: real connection, console, exports, backup, restore, and the errors around them", async () => {
  const p = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "shop" });
  const env = await api.create<any>(`/v1/projects/${p.id}/environments`, { name: "production" });
  const web = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
  const db = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "db", type: "POSTGRES", dbName: "shop", injectConnectionUrl: true });
  const cache = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "cache", type: "REDIS" });
  const base = `/v1/services/${db.id}`;

  // Before the first deploy goes live: provisioned address, but no database yet.
  await expect(api.get(`${base}/connection`)).rejects.toMatchObject({ status: 404 });
  await advance(9_000);
  const early = await api.get<any>(`${base}/connection`);
  await expect(pg(early).connect()).rejects.toThrow(/starting up/);
  await expect(api.post(`${base}/backups`, {})).rejects.toMatchObject({ status: 409, message: expect.stringContaining("NOT_PROVISIONED") });
  await expect(api.get(`${base}/database/tables`)).rejects.toMatchObject({ status: 409, message: expect.stringContaining("NOT_PROVISIONED") });
  await advance(60_000);

  // The connection is a real loopback listener, also linked into the sibling as DATABASE_URL.
  const conn = await api.get<any>(`${base}/connection`);
  expect(conn).toMatchObject({ scheme: "postgresql", host: "127.0.0.1", port: early.port, database: "shop", username: "app", externalUrl: null });
  expect(conn.url).toBe(`postgresql://app:${encodeURIComponent(conn.password)}@127.0.0.1:${conn.port}/shop`);
  expect((await client(emu.keys.readOnly).get<any>(`${base}/connection`)).password).toBe("");
  expect((await api.get<any>(`/v1/services/${web.id}/env-vars`)).data).toEqual([{ key: "DATABASE_URL", value: conn.url, scope: "ALL", secret: true, linked: true }]);
  await expect(pg(conn, "wrong-password-123").connect()).rejects.toThrow(/password authentication failed/);
  await expect(pg({ ...conn, username: "postgres" }).connect()).rejects.toThrow(/role "postgres" does not exist/);

  const c = pg(conn);
  await c.connect();
  expect((await c.query("SELECT current_user AS u")).rows).toEqual([{ u: "app" }]);
  await c.query(`CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, email text);
    CREATE TABLE orders (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer_id int REFERENCES customers(id), total numeric(10,2));
    CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;
    INSERT INTO customers (name, email) VALUES ('Ada', 'ada@example.com'), ('Bo', NULL), ('Cy, "the third"', 'cy@example.com');
    INSERT INTO orders (customer_id, total) VALUES (1, 250.50), (3, 12.00);
    ANALYZE;`);

  // The URL works as it is, for the pg client and for psql where it is installed.
  const viaUrl = new Client({ connectionString: conn.url });
  clients.push(viaUrl);
  await viaUrl.connect();
  expect((await viaUrl.query("SELECT count(*)::int AS n FROM customers")).rows).toEqual([{ n: 3 }]);
  await viaUrl.end();
  const psql = ["/usr/bin/psql", "/usr/local/bin/psql"].find((p) => existsSync(p));
  if (psql) {
    const { stdout } = await promisify(execFile)(psql, [conn.url, "-tAc", "SELECT name FROM customers ORDER BY id LIMIT 1"], { env: { ...process.env, PGCONNECT_TIMEOUT: "30" } });
    expect(stdout.trim()).toBe("Ada");
  }

  // Console: tables (planner estimates), pages and search, columns with keys, objects.
  const tables = await api.get<any>(`${base}/database/tables`);
  expect(tables).toEqual({ data: [{ name: "customers", schema: "public", estimatedRows: 3 }, { name: "orders", schema: "public", estimatedRows: 2 }], nextCursor: null });
  const first = await api.get<any>(`${base}/database/tables`, { query: { limit: 1 } });
  expect(first.data.map((t: any) => t.name)).toEqual(["customers"]);
  expect((await api.get<any>(`${base}/database/tables`, { query: { cursor: first.nextCursor } })).data.map((t: any) => t.name)).toEqual(["orders"]);
  expect((await api.get<any>(`${base}/database/tables`, { query: { search: "ORD" } })).data.map((t: any) => t.name)).toEqual(["orders"]);
  // Console scopes (§4.6): reads READ + PLATFORM_API, writes WRITE + PLATFORM_API.
  expect((await client(emu.keys.readPlatform).get<any>(`${base}/database/tables`)).data).toHaveLength(2);
  await expect(client(emu.keys.readPlatform).post(`${base}/database/query`, { statement: "SELECT 1" })).rejects.toMatchObject({ status: 403 });
  await expect(client(emu.keys.deploysOnly).get(`${base}/database/objects`)).rejects.toMatchObject({ status: 403, message: expect.stringContaining("PLATFORM_API") });
  const cols = await api.get<any>(`${base}/database/tables/orders/columns`);
  expect(cols).toMatchObject({ name: "orders", schema: "public", primaryKey: ["id"] });
  expect(cols.columns).toEqual([
    { name: "id", type: "integer", nullable: false, default: null, isPrimaryKey: true, references: null },
    { name: "customer_id", type: "integer", nullable: true, default: null, isPrimaryKey: false, references: { schema: "public", table: "customers", column: "id" } },
    { name: "total", type: "numeric(10,2)", nullable: true, default: null, isPrimaryKey: false, references: null },
  ]);
  expect((await api.get<any>(`${base}/database/tables/customers/columns`)).columns[0].default).toBe("nextval('customers_id_seq'::regclass)");
  await expect(api.get(`${base}/database/tables/nope/columns`)).rejects.toMatchObject({ status: 404 });
  const objects = await api.get<any>(`${base}/database/objects`);
  expect(objects.data).toEqual([
    { name: "big_orders", schema: "public", kind: "view" }, { name: "customers", schema: "public", kind: "table" }, { name: "orders", schema: "public", kind: "table" },
  ]);
  expect((await api.get<any>(`${base}/database/objects`, { query: { search: "big", limit: 1 } })).data).toHaveLength(1);

  // Query: text cells, SQL NULL as null, maxRows truncation, writes, engine errors.
  const q = await api.post<any>(`${base}/database/query`, { statement: "SELECT id, name, email FROM customers ORDER BY id", maxRows: 2 });
  expect(q).toMatchObject({ engine: "POSTGRES", columns: ["id", "name", "email"], rows: [["1", "Ada", "ada@example.com"], ["2", "Bo", null]], rowCount: 3, truncated: true, notices: [] });
  expect(typeof q.executionMs).toBe("number");
  const w = await api.post<any>(`${base}/database/query`, { statement: "UPDATE customers SET email = 'bo@example.com' WHERE id = 2" });
  expect(w).toMatchObject({ rows: null, rowCount: 1, truncated: false, message: "UPDATE 1" });
  await expect(api.post(`${base}/database/query`, { statement: "SELECT * FROM missing_table" })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("missing_table") });
  await expect(api.post(`${base}/database/query`, { statement: "" })).rejects.toMatchObject({ status: 400 });
  expect(await api.post<any>(`${base}/database/query`, { statement: "DROP TABLE IF EXISTS nope" })).toMatchObject({ rows: null, message: "DROP", notices: ['table "nope" does not exist, skipping'] });

  // Exports: a table as CSV, JSON and SQL; the database as SQL and as a data directory archive.
  const csv = await api.post<any>(`${base}/database/tables/customers/exports`, { format: "CSV" });
  expect(csv).toMatchObject({ format: "CSV", filename: expect.stringMatching(/^customers-.*\.csv$/), sizeBytes: expect.any(Number), expiresAt: expect.any(String) });
  expect(csv.url.startsWith(emu.baseUrl + "/_exports/")).toBe(true);
  const csvFile = await download(csv.url);
  expect(csvFile.body.toString()).toBe('id,name,email\r\n1,Ada,ada@example.com\r\n2,Bo,bo@example.com\r\n3,"Cy, ""the third""",cy@example.com\r\n');
  expect(csvFile.body.length).toBe(csv.sizeBytes);
  const json = await api.post<any>(`${base}/database/tables/orders/exports`, { format: "JSON" });
  expect(JSON.parse((await download(json.url)).body.toString())).toEqual([{ id: 1, customer_id: 1, total: 250.5 }, { id: 2, customer_id: 3, total: 12 }]);
  const tsql = (await download((await api.post<any>(`${base}/database/tables/orders/exports`, { format: "SQL" })).url)).body.toString();
  expect(tsql).toContain(`CREATE TABLE "public"."orders"`);
  expect(tsql).toContain(`INSERT INTO "public"."orders" ("id", "customer_id", "total") OVERRIDING SYSTEM VALUE VALUES ('1', '1', '250.50');`);
  expect(tsql).not.toContain("customers_id_seq");
  const dump = await api.post<any>(`${base}/database/exports`, { format: "SQL" });
  const dumpText = (await download(dump.url)).body.toString();
  for (const part of [`CREATE SEQUENCE "public"."customers_id_seq"`, `CREATE TABLE "public"."customers"`, `CREATE VIEW "public"."big_orders"`, "FOREIGN KEY (customer_id) REFERENCES customers(id)"]) {
    expect(dumpText).toContain(part);
  }
  // ARCHIVE: pg_dump's custom format, which pg_restore reads.
  const archive = await api.post<any>(`${base}/database/exports`, { format: "ARCHIVE" });
  expect(archive).toMatchObject({ format: "ARCHIVE", filename: expect.stringMatching(/^shop-.*\.dump$/) });
  const archived = (await download(archive.url)).body;
  expect(archived.subarray(0, 5).toString()).toBe("PGDMP");
  const pgRestore = ["/usr/bin/pg_restore", "/usr/local/bin/pg_restore"].find((p) => existsSync(p));
  if (pgRestore) {
    const dir = mkdtempSync(path.join(tmpdir(), "pg-archive-"));
    try {
      writeFileSync(path.join(dir, "a.dump"), archived);
      const { stdout } = await promisify(execFile)(pgRestore, ["--list", path.join(dir, "a.dump")]);
      expect(stdout).toMatch(/TABLE public customers/);
      expect(stdout).toMatch(/VIEW public big_orders/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  expect((await download(dump.url.replace(/signature=[0-9a-f]/, "signature=x"))).status).toBe(403);
  await expect(api.post(`${base}/database/exports`, { format: "CSV" })).rejects.toMatchObject({ status: 400 });

  // Backup: PENDING -> RUNNING -> COMPLETED on the clock, newest first; scopes.
  const backup = await api.post<any>(`${base}/backups`, {});
  expect(backup).toMatchObject({ serviceId: db.id, status: "PENDING", trigger: "MANUAL", sizeBytes: null, errorCode: null, startedAt: null });
  await advance(2_000);
  expect((await api.get<any>(`${base}/backups`)).data[0]).toMatchObject({ id: backup.id, status: "RUNNING" });
  await expect(api.post(`/v1/backups/${backup.id}/restore`, {})).rejects.toMatchObject({ status: 409 });
  await advance(3_000);
  const done = (await api.get<any>(`${base}/backups`)).data[0];
  expect(done).toMatchObject({ id: backup.id, status: "COMPLETED", region: "af-west-1" });
  expect(done.sizeBytes).toBeGreaterThan(500);
  await expect(client(emu.keys.platformOnly).post(`${base}/backups`, {})).rejects.toMatchObject({ status: 403, message: expect.stringContaining("DATABASES") });
  await expect(client(emu.keys.platformOnly).get(`${base}/backups`)).rejects.toMatchObject({ status: 403 });

  // A write after the backup, then a restore (ADMIN only) brings the backup's data back.
  await c.query("INSERT INTO customers (name) VALUES ('Zed'); DELETE FROM orders WHERE id = 2; DROP VIEW big_orders;");
  await expect(client(emu.keys.member).post(`/v1/backups/${backup.id}/restore`, {})).rejects.toMatchObject({ status: 403 });
  await expect(client(emu.keys.readOnly).post(`/v1/backups/${backup.id}/restore`, {})).rejects.toMatchObject({ status: 403 });
  const restore = await api.post<any>(`/v1/backups/${backup.id}/restore`, {});
  expect(restore).toMatchObject({ serviceId: db.id, backupId: backup.id, status: "PENDING", errorCode: null, safetyBackupId: expect.any(String) });
  expect((await c.query("SELECT name FROM customers ORDER BY id")).rows.map((r) => r.name)).toEqual(["Ada", "Bo", 'Cy, "the third"']);
  expect((await c.query("SELECT count(*)::int AS n FROM big_orders")).rows).toEqual([{ n: 1 }]);
  // Sequences carry on where the backup left them.
  expect((await c.query("INSERT INTO customers (name) VALUES ('Di') RETURNING id")).rows).toEqual([{ id: 4 }]);
  expect((await c.query("INSERT INTO orders (customer_id, total) VALUES (4, 1) RETURNING id")).rows).toEqual([{ id: 3 }]);
  const list = (await api.get<any>(`${base}/backups`)).data;
  expect(list.map((b: any) => [b.id, b.trigger])).toEqual([[restore.safetyBackupId, "PRE_RESTORE"], [backup.id, "MANUAL"]]);
  await advance(5_000);
  expect(await api.get<any>(`/v1/restores/${restore.id}`)).toMatchObject({ status: "COMPLETED", completedAt: expect.any(String) });
  // The safety backup holds the data from just before the restore: restoring it undoes the restore.
  await api.post(`/v1/backups/${restore.safetyBackupId}/restore`, {});
  expect((await c.query("SELECT name FROM customers ORDER BY id")).rows.map((r) => r.name)).toEqual(["Ada", "Bo", 'Cy, "the third"', "Zed"]);

  // An export URL expires on the emulator clock.
  await advance(16 * 60_000);
  expect((await download(dump.url)).status).toBe(403);

  // Engines without a real database, and services that are no database.
  for (const path of [`/v1/services/${cache.id}/database/tables`, `/v1/services/${cache.id}/backups`]) {
    await expect(api.get(path)).rejects.toMatchObject({ status: 409, message: expect.stringContaining("NOT_SUPPORTED") });
  }
  const raw = await fetch(`${emu.baseUrl}/v1/services/${cache.id}/backups`, { method: "POST", headers: { authorization: `Bearer ${emu.apiKey}` } });
  expect(await raw.json()).toMatchObject({ statusCode: 409, errorCode: "NOT_SUPPORTED" });
  await expect(api.post(`/v1/services/${web.id}/database/query`, { statement: "SELECT 1" })).rejects.toMatchObject({ status: 404 });
  await expect(client(emu.keys.otherWorkspace).get(`${base}/database/tables`)).rejects.toMatchObject({ status: 404 });

  // Deleting the project closes the database and leaves nothing behind.
  await api.delete(`/v1/projects/${p.id}`);
  expect(await leftovers()).toEqual({});
  await expect(c.query("SELECT 1")).rejects.toThrow();
});
