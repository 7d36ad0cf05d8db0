// `make bench`, load rows (L1, L2), each beside its baseline from the same run:
// L1: S stacks in parallel (Automation API, dynamic SDK) x M Projects against one emulator with a
//     per-key limit of 300/min on one key: the create window against the limit's theoretical minimum.
// L2: the emulator (its CLI, in its own process) under C concurrent clients on mixed reads and
//     writes: p50, p99 and throughput, beside the same clients on its bare health route.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { Pool } from "undici";
import { startEmulator } from "../emulator";
import { openStack, ROOT, type StackHandle } from "../scripts/pulumi-env";
import { installedApp, type Row } from "./engine";

const PROGRAM = join(ROOT, "bench", "programs", "engine");
const CLI = join(ROOT, "dist", "emulator", "cli.js");
const LIMIT_PER_MINUTE = 300;
const CREATE = "POST /v1/workspaces/:workspaceId/projects";

export interface LoadOptions {
  /** L1: stacks run in parallel, and Projects in each. */
  stacks: number;
  perStack: number;
  /** L2: concurrent clients, and seconds each mix runs (after a warm-up of a fifth of it). */
  clients: number;
  seconds: number;
}

export async function runLoad(opts: LoadOptions): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [id, fn] of [["L1", () => parallelStacks(opts)], ["L2", () => latency(opts)]] as const) {
    process.stderr.write(`bench: ${id}...\n`);
    try {
      rows.push(...(await fn()));
    } catch (err) {
      const why = String((err as Error).message).split("\n").find((l) => /error/i.test(l)) ?? String(err);
      rows.push({ id, what: `failed: ${why.trim().slice(0, 160)}`, value: "-", baseline: "-", ratio: "-", target: "-", n: "-", ok: false });
    }
  }
  return rows;
}

/** L1: every stack's `up` at once, all with one key, under the emulator's per-key limit. */
async function parallelStacks(opts: LoadOptions): Promise<Row[]> {
  const rows: Row[] = [];
  const emu = await startEmulator({ settings: { speed: 0 } });
  const hits: { t: number; route: string; status: number }[] = [];
  const count = emu.emu.count.bind(emu.emu);
  emu.emu.count = (route: string, status: number) => {
    // The limiter's own "rate-limited" tally doubles the 429s the route counter already has.
    if (!route.endsWith(" rate-limited")) hits.push({ t: Date.now(), route, status });
    count(route, status);
  };
  const app = installedApp(PROGRAM);
  const stacks: StackHandle[] = [];
  try {
    for (let i = 0; i < opts.stacks; i++) {
      stacks.push(await openStack({
        programDir: app.dir, stackName: `load-${process.pid}-${i}`,
        env: { CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey },
        config: { mode: "projects", count: String(opts.perStack), tag: `l${i}` },
      }));
    }
    emu.emu.rateLimit.set({ perMinute: LIMIT_PER_MINUTE });
    const burst = emu.emu.rateLimit.get()!.burst;
    const t0 = Date.now();
    const ups = await Promise.allSettled(stacks.map((s) => s.stack.up()));
    const wall = (Date.now() - t0) / 1000;
    emu.emu.rateLimit.set(undefined);
    const failed = ups.filter((u) => u.status === "rejected").length;
    const served = hits.filter((h) => h.status !== 429);
    const created = served.filter((h) => h.route === CREATE && h.status < 300);
    const throttled = hits.length - served.length;
    const errors = served.filter((h) => h.status >= 400).length;
    // With a full bucket at the start, K requests take at least (K - burst) / rate: every request
    // the key made counts (the creates and each stack's workspace lookup).
    const window = (created[created.length - 1].t - served[0].t) / 1000;
    const minimum = ((served.length - burst) / LIMIT_PER_MINUTE) * 60;
    const total = opts.stacks * opts.perStack;
    rows.push({
      id: "L1",
      what: `${opts.stacks} stacks x ${opts.perStack} Projects, one key, ${LIMIT_PER_MINUTE}/min: window vs min (${served.length} req, ${throttled} 429s, ${errors} err, ${failed} failed; ${wall.toFixed(0)}s)`,
      value: `${window.toFixed(1)}s`, baseline: `${minimum.toFixed(1)}s`, ratio: `${(window / minimum).toFixed(2)}x`, target: "<= 1.15x, 0 failed", n: total,
      ok: window / minimum <= 1.15 && failed === 0 && errors === 0 && created.length === total,
    });
    await Promise.all(stacks.map((s) => s.stack.destroy()));
    return rows;
  } finally {
    for (const s of stacks) await s.dispose().catch(() => undefined);
    await emu.close();
    app.dispose();
  }
}

interface Started {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
}

/** The emulator CLI in its own process, so the load generator does not share its event loop. */
async function emulatorProcess(): Promise<Started> {
  const child = spawn(process.execPath, [CLI, "--speed", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((ok, fail) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) ok(out.split("\n")[0]);
    });
    child.once("exit", (code) => fail(new Error(`the emulator exited (${code}) before it printed its line`)));
  });
  const { baseUrl, apiKey, workspaceId } = JSON.parse(line);
  return { child, baseUrl, apiKey, workspaceId };
}

interface Mix {
  p50: number;
  p99: number;
  perSecond: number;
  errors: number;
  requests: number;
}

/** Runs `clients` loops of `one` for `seconds` (after a warm-up); latencies in ms. */
async function drive(clients: number, seconds: number, one: (client: number) => Promise<number>): Promise<Mix> {
  const run = async (ms: number) => {
    const latencies: number[] = [];
    let errors = 0;
    const end = performance.now() + ms;
    await Promise.all(Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < end) {
        const t = performance.now();
        const status = await one(c).catch(() => 0);
        latencies.push(performance.now() - t);
        if (status === 0 || status >= 500) errors++;
      }
    }));
    return { latencies, errors };
  };
  await run(Math.max(1000, (seconds * 1000) / 5));
  const { latencies, errors } = await run(seconds * 1000);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { p50: at(0.5), p99: at(0.99), perSecond: latencies.length / seconds, errors, requests: latencies.length };
}

/** L2: mixed reads and writes by `clients` concurrent clients, beside the bare health route. */
async function latency(opts: LoadOptions): Promise<Row[]> {
  const emu = await emulatorProcess();
  const pool = new Pool(emu.baseUrl, { connections: opts.clients });
  try {
    const auth = { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" };
    const call = async (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<{ status: number; json: any }> => {
      const res = await pool.request({ method, path, headers: { ...auth, ...(method === "POST" ? { "idempotency-key": randomUUID() } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.body.text();
      return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
    };
    const projects = `/v1/workspaces/${emu.workspaceId}/projects`;
    const seeded: string[] = [];
    for (let i = 0; i < 50; i++) seeded.push((await call("POST", projects, { name: `seed-${i}`, description: "load" })).json.id);
    // Each client's writes cycle create -> update -> delete of its own project, so the state stays
    // the same size; about one request in three is a write.
    const own: (string | undefined)[] = [];
    const step: number[] = [];
    const mixed = async (c: number): Promise<number> => {
      const r = Math.random();
      const pick = seeded[Math.floor(Math.random() * seeded.length)];
      if (r < 0.35) return (await call("GET", `/v1/projects/${pick}`)).status;
      if (r < 0.55) return (await call("GET", `${projects}?limit=20`)).status;
      if (r < 0.67) return (await call("GET", "/v1/me")).status;
      const phase = (step[c] = ((step[c] ?? -1) + 1) % 3);
      if (phase === 0 || !own[c]) {
        const made = await call("POST", projects, { name: `load-${c}`, description: "mixed" });
        own[c] = made.json?.id;
        return made.status;
      }
      if (phase === 1) return (await call("PATCH", `/v1/projects/${own[c]}`, { description: `step ${Date.now()}` })).status;
      const gone = await call("DELETE", `/v1/projects/${own[c]}`);
      own[c] = undefined;
      return gone.status;
    };
    const health = async (): Promise<number> => {
      const res = await pool.request({ method: "GET", path: "/_emulator/health" });
      await res.body.text();
      return res.statusCode;
    };
    const base = await drive(opts.clients, opts.seconds, health);
    const mix = await drive(opts.clients, opts.seconds, mixed);
    const ms = (v: number) => `${v.toFixed(1)}ms`;
    return [
      {
        id: "L2", what: `p99, ${opts.clients} clients, mixed reads/writes (1/3 writes) vs /_emulator/health (${mix.requests} req, ${mix.errors} err)`,
        value: ms(mix.p99), baseline: ms(base.p99), ratio: `${(mix.p99 / base.p99).toFixed(2)}x`, target: "(informative), 0 errors", n: opts.clients, ok: mix.errors === 0,
      },
      { id: "L2", what: "p50 latency, same run", value: ms(mix.p50), baseline: ms(base.p50), ratio: `${(mix.p50 / base.p50).toFixed(2)}x`, target: "(informative)", n: opts.clients, ok: true },
      {
        id: "L2", what: "throughput, same run (requests/s)", value: `${Math.round(mix.perSecond)}/s`, baseline: `${Math.round(base.perSecond)}/s`,
        ratio: `${(mix.perSecond / base.perSecond).toFixed(2)}x`, target: "(informative)", n: opts.clients, ok: true,
      },
    ];
  } finally {
    await pool.close();
    await new Promise((ok) => (emu.child.once("exit", ok), emu.child.kill("SIGTERM")));
  }
}
