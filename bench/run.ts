// `make bench`: speed and memory measured as ratios against baselines run in the same process, so
// the numbers mean the same on any machine. Targets are printed beside each ratio; nothing here is
// a test assertion.
import * as pulumi from "@pulumi/pulumi";
import { Agent, request } from "undici";
import { startEmulator } from "../emulator";
import { CloudPlatformClient } from "../provider/client";
import { providerFor } from "../sdk/provider";
import { databaseRows } from "./databases";
import { runDrift } from "./drift";
import { printDurable, runDurable } from "./durable";
import { printEngine, runEngine } from "./engine";
import { type LoadOptions, runLoad } from "./load";

interface Row {
  what: string;
  value: number;
  baseline: number;
  unit: string;
  target: string;
  ok: boolean;
}
const rows: Row[] = [];
const record = (what: string, value: number, baseline: number, unit: string, maxRatio: number) =>
  rows.push({ what, value, baseline, unit, target: `<= ${maxRatio}x`, ok: value / baseline <= maxRatio });

async function once(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  return Number(process.hrtime.bigint() - start) / 1e6 / n;
}

/** Times a measure and its baseline in alternating rounds and keeps the best of each. */
async function pair(n: number, measure: (i: number) => Promise<unknown>, baseline: (i: number) => Promise<unknown>) {
  await once(Math.min(50, n), measure);
  await once(Math.min(50, n), baseline);
  let m = Infinity;
  let b = Infinity;
  for (let round = 0; round < 3; round++) {
    b = Math.min(b, await once(n, baseline));
    m = Math.min(m, await once(n, measure));
  }
  return { m, b };
}

async function main(): Promise<void> {
  if (process.argv.includes("--load-only")) return printEngine(await runLoad(loadOptions()), LOAD_TITLE);
  const emu = await startEmulator();
  const agent = new Agent();
  const client = new CloudPlatformClient({ apiKey: emu.apiKey, baseUrl: emu.baseUrl, dispatcher: agent });
  const ws = emu.workspaceId;
  const project = await client.create<{ id: string }>(`/v1/workspaces/${ws}/projects`, { name: "bench" });
  const headers = { authorization: `Bearer ${emu.apiKey}` };

  // 1. Client overhead per GET (retry agent, request id, error mapping, zod) vs raw undici.
  const get = await pair(
    1000,
    () => client.get(`/v1/projects/${project.id}`),
    async () => (await request(`${emu.baseUrl}/v1/projects/${project.id}`, { headers, dispatcher: agent })).body.json(),
  );
  record("client GET vs raw undici (ms/request)", get.m, get.b, "ms", 1.5);

  // 2. Pagination: the async iterator vs a hand-written loop over the same pages.
  for (let i = 0; i < 999; i++) emu.emu.store.table<any>("projects").insert({ ...(await client.get<any>(`/v1/projects/${project.id}`)), id: `p${i}` });
  const walk = await pair(10, () => client.list(`/v1/workspaces/${ws}/projects`, { query: { limit: 100 } }), async () => {
    let cursor: string | null = null;
    let n = 0;
    do {
      const q: string = cursor ? `cursor=${cursor}` : "limit=100";
      const r = await request(`${emu.baseUrl}/v1/workspaces/${ws}/projects?${q}`, { headers, dispatcher: agent });
      const page = (await r.body.json()) as { data: unknown[]; nextCursor: string | null };
      n += page.data.length;
      cursor = page.nextCursor;
    } while (cursor);
    return n;
  });
  record("list 1000 projects: iterator vs hand loop (ms/walk)", walk.m, walk.b, "ms", 1.3);

  // 3. Emulator route cost (auth, scopes, view) vs its own health route, same server.
  const route = await pair(
    1000,
    async () => (await request(`${emu.baseUrl}/v1/me`, { headers, dispatcher: agent })).body.json(),
    async () => (await request(`${emu.baseUrl}/_emulator/health`, { dispatcher: agent })).body.json(),
  );
  record("emulator GET /v1/me vs /_emulator/health (ms/request)", route.m, route.b, "ms", 3);

  // 4. Memory per stored project vs the same rows as a bare array.
  const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `m${i}`, workspaceId: ws, name: `n${i}`, displayName: null, description: "x".repeat(40), defaultRegion: "af-west-1", paused: false, pausedAt: null, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() }));
  const heap = () => {
    global.gc?.();
    return process.memoryUsage().heapUsed;
  };
  let before = heap();
  const bare = rowsOf(20000);
  const bareBytes = (heap() - before) / bare.length;
  before = heap();
  const t = emu.emu.store.table<any>("bench");
  for (const r of rowsOf(20000)) t.insert(r);
  const storeBytes = (heap() - before) / 20000;
  record("emulator store bytes/row vs bare array", Math.max(storeBytes, 1), Math.max(bareBytes, 1), "B", 2);
  void bare;

  // 5. State: the serialized provider every resource carries (twice: inputs and outputs) vs a
  // trivial provider with the same seven methods that captures nothing.
  const trivial: pulumi.dynamic.ResourceProvider = {
    configure: async () => {}, check: async () => ({}), diff: async () => ({}), create: async () => ({ id: "x" }),
    read: async () => ({}), update: async () => ({}), delete: async () => {},
  };
  const baseline = await pulumi.runtime.serializeFunction(() => trivial);
  const ourProvider = providerFor("Project");
  const serialized = await pulumi.runtime.serializeFunction(() => ourProvider);
  // Each closure names its kind (~200 B apiece); capturing a module by mistake would show as 100x.
  record("serialized provider bytes per resource vs trivial 7-method one", serialized.text.length, baseline.text.length, "B", 3);

  await client.close();
  await agent.close();
  await emu.close();

  // 6. Memory per idle database, real server (and the PGlite fallback with BENCH_PGLITE=1).
  for (const r of await databaseRows()) record(r.what, r.value, r.baseline, r.unit, r.maxRatio);

  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(pad("measure", 62), pad("value", 10), pad("baseline", 10), pad("ratio", 8), "target");
  for (const r of rows) {
    console.log(
      pad(r.what, 62), pad(`${r.value.toFixed(r.unit === "B" ? 0 : 3)}${r.unit}`, 10), pad(`${r.baseline.toFixed(r.unit === "B" ? 0 : 3)}${r.unit}`, 10),
      pad(`${(r.value / r.baseline).toFixed(2)}x`, 8), `${r.target} ${r.ok ? "ok" : "MISSED"}`,
    );
  }

  // The durable store: --state vs in memory, the emulator in its own process.
  printDurable(await runDurable());

  // The engine-level rows (P1-P6), through the real CLI. N: `--n 200` or BENCH_N=200.
  const n = Number(flag("--n") ?? process.env.BENCH_N ?? 60);
  const mailRuns = Number(flag("--mail-runs") ?? process.env.BENCH_MAIL_RUNS ?? 3);
  if (!(n >= 10) || !(mailRuns >= 1)) throw new Error("--n must be at least 10 and --mail-runs at least 1");
  printEngine(await runEngine({ n, mailRuns }));

  // The load rows (L1, L2). `--load-only` runs them alone.
  printEngine(await runLoad(loadOptions()), LOAD_TITLE);

  // The drift rows (D1-D3); `node dist/bench/drift.js [--drift-stacks 64]` runs them alone.
  printEngine(await runDrift({ stacks: Number(flag("--drift-stacks") ?? 16), memoryStacks: Number(flag("--drift-memory-stacks") ?? 64), rounds: Number(flag("--drift-rounds") ?? 3) }), "drift measure (real Pulumi CLI)");
}

const LOAD_TITLE = "load measure (parallel stacks through the real CLI; concurrent clients)";

/** L1's stacks and Projects each, L2's clients and seconds: flags, then BENCH_LOAD_* variables. */
function loadOptions(): LoadOptions {
  const num = (name: string, env: string, fallback: number) => Number(flag(`--${name}`) ?? process.env[env] ?? fallback);
  const o = { stacks: num("stacks", "BENCH_LOAD_STACKS", 8), perStack: num("per-stack", "BENCH_LOAD_PER_STACK", 50), clients: num("clients", "BENCH_LOAD_CLIENTS", 200), seconds: num("seconds", "BENCH_LOAD_SECONDS", 15) };
  if (!Object.values(o).every((v) => Number.isInteger(v) && v >= 1)) throw new Error("--stacks, --per-stack, --clients and --seconds must be positive integers");
  return o;
}

/** `--name value` or `--name=value` from the command line. */
function flag(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
