// Database data and backup dumps survive a restart with --state, and SIGTERM lets a statement under
// way finish before the database server stops. The emulator runs as its CLI, stopped and started
// again on the same state, as a user would.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { Client } from "pg";
import { CloudPlatformClient } from "../../provider/client";

jest.setTimeout(300_000);

interface Info { baseUrl: string; workspaceId: string; apiKey: string }
const procs: ChildProcess[] = [];
const apis: CloudPlatformClient[] = [];
const clients: Client[] = [];
const dir = mkdtempSync(path.join(tmpdir(), "pg-durable-"));
const state = path.join(dir, "state.json");

async function startCli(): Promise<{ info: Info; proc: ChildProcess; api: CloudPlatformClient }> {
  const proc = spawn(process.execPath, [path.join(__dirname, "../../dist/emulator/cli.js"), "--port", "0", "--speed", "0", "--state", state], { stdio: ["ignore", "pipe", "inherit"] });
  procs.push(proc);
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`the emulator exited with ${code}`)));
  });
  const info = JSON.parse(first) as Info;
  const api = new CloudPlatformClient({ apiKey: info.apiKey, baseUrl: info.baseUrl, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
  apis.push(api);
  return { info, proc, api };
}
const pg = (conn: { url: string }) => {
  const c = new Client({ connectionString: conn.url });
  c.on("error", () => undefined);
  clients.push(c);
  return c;
};
const names = async (c: Client) => (await c.query("SELECT name FROM items ORDER BY id")).rows.map((r) => r.name);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await Promise.all(apis.map((a) => a.close()));
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) {
    const exited = new Promise((r) => p.once("exit", r));
    p.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test("rows and backups survive a restart with --state; SIGTERM during a slow insert keeps the row", async () => {
  const first = await startCli();
  const a = first.api;
  const p = await a.create<any>(`/v1/workspaces/${first.info.workspaceId}/projects`, { name: "kept" });
  const env = await a.create<any>(`/v1/projects/${p.id}/environments`, { name: "production" });
  const db = await a.create<any>(`/v1/environments/${env.id}/services`, { name: "db", type: "POSTGRES" });
  const conn = await a.get<any>(`/v1/services/${db.id}/connection`);
  const c = pg(conn);
  await c.connect();
  await c.query("CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO items (name) VALUES ('one'), ('two')");

  // 202 PENDING even at --speed 0; the next read shows it COMPLETED.
  const backup = await a.post<any>(`/v1/services/${db.id}/backups`, {});
  expect(backup).toMatchObject({ status: "PENDING", startedAt: null, completedAt: null, sizeBytes: null });
  expect((await a.get<any>(`/v1/services/${db.id}/backups`)).data[0]).toMatchObject({ id: backup.id, status: "COMPLETED", sizeBytes: expect.any(Number) });
  await c.query("INSERT INTO items (name) VALUES ('three')");

  // SIGTERM while two inserts sleep for 2 s, one from a client, one from the console route: the
  // emulator lets both commit, then stops.
  const slow = c.query("INSERT INTO items (name) SELECT 'slow' FROM pg_sleep(2)");
  const viaConsole = a.post<any>(`/v1/services/${db.id}/database/query`, { statement: "INSERT INTO items (name) SELECT 'console' FROM pg_sleep(2)" });
  const watch = pg(conn);
  await watch.connect();
  let active = 0;
  for (let i = 0; i < 200 && active < 2; i++) {
    await new Promise((r) => setTimeout(r, 20));
    active = (await watch.query("SELECT count(DISTINCT pid)::int AS n FROM pg_locks WHERE relation = 'items'::regclass AND mode = 'RowExclusiveLock'")).rows[0].n;
  }
  expect(active).toBe(2);
  const exited = new Promise<number | null>((resolve) => first.proc.once("exit", resolve));
  first.proc.kill("SIGTERM");
  expect(await slow).toMatchObject({ command: "INSERT", rowCount: 1 });
  expect(await viaConsole).toMatchObject({ message: "INSERT 0 1" });
  expect(await exited).toBe(0);

  const second = await startCli();
  const b = second.api;
  // Readiness reports the database once its server is back.
  let ready: any;
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${second.info.baseUrl}/_emulator/ready`);
    ready = await res.json();
    if (res.status === 200) break;
    expect(res.status).toBe(503);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(ready.parts).toEqual(expect.arrayContaining([expect.objectContaining({ name: "database", serviceId: db.id, ready: true, state: "ready", port: conn.port })]));
  const again = await b.get<any>(`/v1/services/${db.id}/connection`);
  expect(again).toMatchObject({ port: conn.port, password: conn.password });
  const c2 = pg(again);
  await c2.connect();
  expect((await names(c2)).sort()).toEqual(["console", "one", "slow", "three", "two"]);

  // The backup taken before the restart restores: 202 PENDING, then COMPLETED, with its data back.
  const restore = await b.post<any>(`/v1/backups/${backup.id}/restore`, {});
  expect(restore).toMatchObject({ status: "PENDING", errorCode: null, safetyBackupId: expect.any(String) });
  expect(await b.get<any>(`/v1/restores/${restore.id}`)).toMatchObject({ status: "COMPLETED", error: null });
  expect(await names(c2)).toEqual(["one", "two"]);

  await b.delete(`/v1/projects/${p.id}`);
  const left = (await (await fetch(`${second.info.baseUrl}/_emulator/state`)).json()) as { total: number };
  expect(left.total).toBe(0);
});
