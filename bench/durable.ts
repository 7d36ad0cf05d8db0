// `make bench`, the durable store: project creates from 8 concurrent clients (each on its own
// connection, with an Idempotency-Key as the provider sends) against an emulator in its own
// process that already holds N objects, with `--state` and in memory, in alternating rounds of
// the same run (best of each). Also the median create time, to show it does not grow with the
// state, and the emulator process's CPU time per create (user + system, from /proc), which other
// load on the machine does not distort as it does wall time. Run alone with `node dist/bench/durable.js [--sizes 5000,50000] [--creates 3000]`.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { cpuSeconds } from "./scale-series";

const CLIENTS = 8;
const TARGET = 0.8;

interface Info { baseUrl: string; workspaceId: string; apiKey: string }
interface Burst { perSecond: number; medianMs: number; cpuUs?: number }
export interface DurableRow { what: string; memory: string; state: string; ratio: string; target: string; ok: boolean | undefined }


async function child(rows: number, stateDir?: string): Promise<{ info: Info; pid: number; stop: () => Promise<void> }> {
  const script = join(__dirname, "durable-child.js");
  if (stateDir) {
    const prefill = spawn(process.execPath, [script, "prefill", String(rows), stateDir], { stdio: "inherit" });
    const code = await new Promise((r) => prefill.once("exit", r));
    if (code !== 0) throw new Error(`the bench state prefill exited with ${code}`);
  }
  const proc: ChildProcess = spawn(process.execPath, [script, "serve", String(rows), ...(stateDir ? [stateDir] : [])], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((ok, fail) => {
    createInterface({ input: proc.stdout! }).once("line", ok);
    proc.once("exit", (code) => fail(new Error(`the bench emulator exited with ${code}`)));
  });
  return {
    info: JSON.parse(line),
    pid: proc.pid!,
    stop: () => new Promise<void>((done) => {
      proc.once("exit", () => done());
      proc.kill("SIGTERM");
    }),
  };
}

/** `total` creates shared by the clients; the rate over the whole burst and the median request time. */
async function burst(info: Info, total: number): Promise<Burst> {
  const agents = Array.from({ length: CLIENTS }, () => new Agent({ connections: 1 }));
  const times: number[] = [];
  let sent = 0;
  const started = process.hrtime.bigint();
  await Promise.all(agents.map(async (agent) => {
    while (sent < total) {
      const n = sent++;
      const t0 = process.hrtime.bigint();
      const res = await request(`${info.baseUrl}/v1/workspaces/${info.workspaceId}/projects`, {
        method: "POST", dispatcher: agent,
        headers: { authorization: `Bearer ${info.apiKey}`, "content-type": "application/json", "idempotency-key": randomUUID() },
        body: JSON.stringify({ name: `bench-${n}`, description: "Made during the measure" }),
      });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}`);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(agents.map((a) => a.close()));
  times.sort((a, b) => a - b);
  return { perSecond: total / seconds, medianMs: times[Math.floor(times.length / 2)] };
}

async function measure(rows: number, creates: number, durable: boolean): Promise<Burst> {
  const dir = durable ? mkdtempSync(join(tmpdir(), "cp-bench-state-")) : undefined;
  const emu = await child(rows, dir && join(dir, "state"));
  try {
    await burst(emu.info, 300);
    const cpu0 = cpuSeconds(emu.pid);
    const got = await burst(emu.info, creates);
    const cpu1 = cpuSeconds(emu.pid);
    return { ...got, ...(cpu0 !== undefined && cpu1 !== undefined ? { cpuUs: ((cpu1 - cpu0) / creates) * 1e6 } : {}) };
  } finally {
    await emu.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

export async function runDurable(opts: { sizes?: number[]; creates?: number; rounds?: number } = {}): Promise<DurableRow[]> {
  const { sizes = [5_000, 50_000], creates = 3_000, rounds = 3 } = opts;
  const out: DurableRow[] = [];
  for (const rows of sizes) {
    const best = { memory: { perSecond: 0, medianMs: Infinity, cpuUs: Infinity }, state: { perSecond: 0, medianMs: Infinity, cpuUs: Infinity } };
    for (let round = 0; round < rounds; round++) {
      for (const mode of ["memory", "state"] as const) {
        const got = await measure(rows, creates, mode === "state");
        const b = best[mode];
        best[mode] = { perSecond: Math.max(b.perSecond, got.perSecond), medianMs: Math.min(b.medianMs, got.medianMs), cpuUs: Math.min(b.cpuUs, got.cpuUs ?? Infinity) };
      }
    }
    const ratio = best.state.perSecond / best.memory.perSecond;
    const n = rows.toLocaleString("en-US");
    out.push({
      what: `creates/s, ${CLIENTS} clients, ${n} objects: --state / memory`,
      memory: best.memory.perSecond.toFixed(0), state: best.state.perSecond.toFixed(0), ratio: `${ratio.toFixed(2)}x`, target: `>= ${TARGET}x`, ok: ratio >= TARGET,
    });
    out.push({
      what: `median create time (ms), ${n} objects`,
      memory: best.memory.medianMs.toFixed(2), state: best.state.medianMs.toFixed(2), ratio: `${(best.state.medianMs / best.memory.medianMs).toFixed(2)}x`, target: "-", ok: undefined,
    });
    if (Number.isFinite(best.memory.cpuUs) && Number.isFinite(best.state.cpuUs)) {
      out.push({
        what: `emulator CPU per create (us), ${n} objects`,
        memory: best.memory.cpuUs.toFixed(0), state: best.state.cpuUs.toFixed(0), ratio: `${(best.state.cpuUs / best.memory.cpuUs).toFixed(2)}x`, target: "-", ok: undefined,
      });
    }
  }
  return out;
}

export function printDurable(rows: DurableRow[]): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log();
  console.log(pad("durable store (emulator in its own process)", 62), pad("memory", 10), pad("--state", 10), pad("ratio", 8), "target");
  for (const r of rows) {
    console.log(pad(r.what, 62), pad(r.memory, 10), pad(r.state, 10), pad(r.ratio, 8), r.ok === undefined ? r.target : `${r.target} ${r.ok ? "ok" : "MISSED"}`);
  }
}

if (require.main === module) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const sizes = arg("--sizes")?.split(",").map(Number);
  const creates = arg("--creates") ? Number(arg("--creates")) : undefined;
  runDurable({ sizes, creates }).then(printDurable, (err) => {
    console.error(err);
    process.exit(1);
  });
}
