// Where the machine has no PostgreSQL server (forced here with CLOUDPLATFORM_EMULATOR_POSTGRES=pglite),
// each database is PGlite in its own worker thread: the wire protocol, the console, backups and
// restores work, and a slow statement does not hold up the emulator. Also: console statements are
// logged without their values, and readiness answers 503 naming a database engine that fails.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { Client } from "pg";
import type { LogEvent } from "../../emulator/emu";
import { redactStatement } from "../../emulator/postgres-sql";
import { emulator, type TestEmulator } from "../support/emulator";

jest.setTimeout(300_000);

const ENV = "CLOUDPLATFORM_EMULATOR_POSTGRES";
const before = process.env[ENV];
afterAll(() => {
  if (before === undefined) delete process.env[ENV];
  else process.env[ENV] = before;
});

async function databaseService(emu: TestEmulator, name: string) {
  const api = emu.client();
  const p = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name });
  const env = await api.create<any>(`/v1/projects/${p.id}/environments`, { name: "production" });
  const db = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "db", type: "POSTGRES", dbUser: "shop" });
  return { api, project: p, db };
}

test("statements are logged without their values", () => {
  expect(redactStatement("INSERT INTO customers (name, email) VALUES ('Ada', 'ada@example.com'), ('O''Brien', NULL); -- by hand\nSELECT * FROM t WHERE id = 42 AND x > 3.5e2"))
    .toBe("INSERT INTO customers (name, email) VALUES (?, ?), (?, NULL); SELECT * FROM t WHERE id = ? AND x > ?");
  expect(redactStatement("SELECT E'it\\'s secret', 'c:\\', 'also-secret' FROM t1 WHERE a$b = $1 /* 123 */"))
    .toBe("SELECT ?, ?, ? FROM t1 WHERE a$b = $1");
  expect(redactStatement(`CREATE FUNCTION f() RETURNS int AS $body$ SELECT 'x' $body$ LANGUAGE sql; SELECT $$hidden$$, "Col ""1""", X'1F', U&'d\\0061t'`))
    .toBe(`CREATE FUNCTION f() RETURNS int AS ? LANGUAGE sql; SELECT ?, "Col ""1""", ?, ?`);
});

describe("the PGlite fallback", () => {
  let emu: TestEmulator;
  let dir: string;
  const events: LogEvent[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "pg-fallback-"));
    process.env[ENV] = "pglite";
    emu = await emulator({ settings: { speed: 0, dataDir: dir } });
    emu.emu.logSink = (e) => events.push(e);
  });
  afterAll(async () => {
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("serves the wire protocol, the console, backups and restores, off the main thread", async () => {
    const { api, project, db } = await databaseService(emu, "fallback");
    const conn = await api.get<any>(`/v1/services/${db.id}/connection`);
    const c = new Client({ connectionString: conn.url });
    c.on("error", () => undefined);
    await c.connect();
    try {
      expect((await c.query("SELECT current_user AS u")).rows).toEqual([{ u: "shop" }]);
      await c.query("CREATE TABLE items (id serial PRIMARY KEY, name text); INSERT INTO items (name) VALUES ('kept')");
      expect(existsSync(path.join(dir, "pglite", db.id, "PG_VERSION"))).toBe(true);

      // A slow statement runs in the database's worker: the emulator's HTTP answers all the while.
      let done = false;
      const slow = c.query("SELECT pg_sleep(2)").finally(() => { done = true; });
      const answers: number[] = [];
      while (!done) {
        const t0 = performance.now();
        await api.get("/v1/me");
        answers.push(performance.now() - t0);
      }
      await slow;
      expect(answers.length).toBeGreaterThanOrEqual(2);
      for (const ms of answers) expect(ms).toBeLessThan(1_500);

      const q = await api.post<any>(`/v1/services/${db.id}/database/query`, { statement: "SELECT name FROM items WHERE name = 'kept'" });
      expect(q).toMatchObject({ rows: [["kept"]], message: "SELECT 1" });
      const logged = events.filter((e) => e.kind === "sql");
      expect(logged).toEqual([expect.objectContaining({ kind: "sql", msg: "SELECT name FROM items WHERE name = ?", serviceId: db.id, rowCount: 1, durationMs: expect.any(Number) })]);
      expect(JSON.stringify(logged)).not.toContain("kept");
      await expect(api.post(`/v1/services/${db.id}/database/query`, { statement: "SELECT secret_column FROM items WHERE name = 'hidden'" })).rejects.toMatchObject({ status: 400 });
      expect(events.filter((e) => e.kind === "sql").at(-1)).toMatchObject({ msg: "SELECT secret_column FROM items WHERE name = ?", error: "42703" });

      const backup = await api.post<any>(`/v1/services/${db.id}/backups`, {});
      expect(backup.status).toBe("PENDING");
      await c.query("DELETE FROM items");
      const restore = await api.post<any>(`/v1/backups/${backup.id}/restore`, {});
      expect(await api.get<any>(`/v1/restores/${restore.id}`)).toMatchObject({ status: "COMPLETED", error: null });
      expect((await c.query("SELECT name FROM items")).rows).toEqual([{ name: "kept" }]);

      const archive = await api.post<any>(`/v1/services/${db.id}/database/exports`, { format: "ARCHIVE" });
      expect(archive.filename).toMatch(/\.tar\.gz$/);
      expect(gunzipSync(Buffer.from(await (await fetch(archive.url)).arrayBuffer())).length).toBeGreaterThan(1_000_000);

      const ready = (await (await fetch(`${emu.baseUrl}/_emulator/ready`)).json()) as { parts: any[] };
      expect(ready.parts).toEqual(expect.arrayContaining([
        expect.objectContaining({ name: "postgres", engine: "pglite", ready: true }),
        expect.objectContaining({ name: "database", serviceId: db.id, state: "ready", ready: true }),
      ]));
    } finally {
      await c.end().catch(() => undefined);
    }
    await api.delete(`/v1/projects/${project.id}`);
    expect(await emu.leftovers()).toEqual({});
    for (let i = 0; i < 50 && existsSync(path.join(dir, "pglite", db.id)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(path.join(dir, "pglite", db.id))).toBe(false);
  });
});

test("readiness answers 503 naming a database engine that cannot start", async () => {
  const bin = mkdtempSync(path.join(tmpdir(), "pg-broken-"));
  chmodSync(bin, 0o755); // as root, the server runs as another user
  for (const name of ["postgres", "initdb"]) {
    writeFileSync(path.join(bin, name), "#!/bin/sh\necho 'cannot run here' >&2\nexit 3\n");
    chmodSync(path.join(bin, name), 0o755);
  }
  process.env[ENV] = bin;
  const emu = await emulator({ settings: { speed: 0 } });
  try {
    const { api, project, db } = await databaseService(emu, "broken");
    expect((await fetch(`${emu.baseUrl}/_emulator/ready`)).status).toBe(200);
    await expect(api.get(`/v1/services/${db.id}/database/tables`)).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/DATABASE_NOT_RUNNING.*initdb failed.*cannot run here/) });
    const res = await fetch(`${emu.baseUrl}/_emulator/ready`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { ready: boolean; parts: any[] };
    expect(body.ready).toBe(false);
    expect(body.parts).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: "http", ready: true }),
      expect.objectContaining({ name: "postgres", ready: false, state: "failed", error: expect.stringContaining("cannot run here") }),
      expect.objectContaining({ name: "database", serviceId: db.id, ready: false, state: "failed" }),
    ]));
    await api.delete(`/v1/projects/${project.id}`);
  } finally {
    await emu.close();
    rmSync(bin, { recursive: true, force: true });
  }
});
