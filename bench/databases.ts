// Memory per idle database: what one more POSTGRES service costs once its database exists and no
// client is connected, against the whole idle cluster that serves it (what a cluster per service
// would cost each time). The real server's processes are measured by their proportional set size
// (PSS: shared memory split between the processes that map it). With BENCH_PGLITE=1, the PGlite
// fallback's cost per database (a worker thread each) is measured too, as growth of this
// process's resident memory.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { startEmulator } from "../emulator";
import { findServer } from "../emulator/postgres-cluster";
import { CloudPlatformClient } from "../provider/client";

export interface DatabaseRow { what: string; value: number; baseline: number; unit: string; maxRatio: number }

const MB = 1024 * 1024;
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PSS of the postmaster and every process it started, in bytes. */
function clusterPss(dataDir: string): number {
  const postmaster = Number(readFileSync(path.join(dataDir, "postgres", "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const pids = [postmaster];
  for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster) pids.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return pids.reduce((sum, pid) => {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      return sum + Number(m?.[1] ?? 0) * 1024;
    } catch {
      return sum;
    }
  }, 0);
}

/** An emulator with N idle databases made on demand; `add` creates one more and opens and closes a connection to it. */
async function withDatabases<T>(dataDir: string, use: (add: () => Promise<void>) => Promise<T>): Promise<T> {
  const emu = await startEmulator({ settings: { speed: 0, dataDir } });
  const api = new CloudPlatformClient({ apiKey: emu.apiKey, baseUrl: emu.baseUrl });
  try {
    const p = await api.create<{ id: string }>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "bench-db" });
    const env = await api.create<{ id: string }>(`/v1/projects/${p.id}/environments`, { name: "production" });
    let n = 0;
    return await use(async () => {
      const svc = await api.create<{ id: string }>(`/v1/environments/${env.id}/services`, { name: `db${n++}`, type: "POSTGRES" });
      const conn = await api.get<{ url: string }>(`/v1/services/${svc.id}/connection`);
      const c = new Client({ connectionString: conn.url });
      await c.connect();
      await c.query("CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 100) g");
      await c.end();
    });
  } finally {
    await api.close();
    await emu.close();
  }
}

export async function databaseRows(n = 10): Promise<DatabaseRow[]> {
  const rows: DatabaseRow[] = [];
  if (findServer() === "pglite") {
    console.log("memory per idle database: skipped, no PostgreSQL server on this machine (make system-deps installs one)");
    return rows;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "bench-db-"));
  try {
    const saved = process.env.CLOUDPLATFORM_EMULATOR_POSTGRES;
    await withDatabases(dir, async (add) => {
      await add();
      await settle(2_000);
      const cluster = clusterPss(dir);
      for (let i = 0; i < n; i++) await add();
      await settle(2_000);
      const perDb = (clusterPss(dir) - cluster) / n;
      rows.push({ what: `memory per idle database vs an idle cluster (PSS, ${n} dbs)`, value: Math.max(perDb, 1) / MB, baseline: cluster / MB, unit: "MB", maxRatio: 0.1 });
    });
    if (process.env.BENCH_PGLITE === "1") {
      process.env.CLOUDPLATFORM_EMULATOR_POSTGRES = "pglite";
      try {
        await withDatabases(path.join(dir, "pglite-bench"), async (add) => {
          await add();
          await settle(1_000);
          const before = process.memoryUsage().rss;
          for (let i = 0; i < 2; i++) await add();
          await settle(1_000);
          const perDb = (process.memoryUsage().rss - before) / 2;
          rows.push({ what: "memory per idle PGlite database (fallback) vs an idle cluster", value: perDb / MB, baseline: rows[0].baseline, unit: "MB", maxRatio: 4 });
        });
      } finally {
        if (saved === undefined) delete process.env.CLOUDPLATFORM_EMULATOR_POSTGRES;
        else process.env.CLOUDPLATFORM_EMULATOR_POSTGRES = saved;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
