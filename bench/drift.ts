// `make bench` (or `node dist/bench/drift.js`), the drift rows (D1-D3): cloudplatform-drift over
// 16 stacks x 15 resources, half dynamic TypeScript and half native, drift in 4, against the same
// refresh previews run by a shell loop (xargs -P) with the same parallelism, the command started
// both directly and through `npx` from a project that installs the package; the API reads per
// resource from the emulator's counters; the command's peak RSS over 64 stacks (the 16, each
// copied three times in the file backend: same objects, same reads). Printed beside their
// targets; nothing here is asserted. The three take turns to run first in a round.
// `--drift-stacks N`, `--drift-memory-stacks M` and `--drift-rounds R` size them.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../emulator";
import { openStack, ROOT, TOOLS_BIN } from "../scripts/pulumi-env";
import { mapLimit } from "../provider/drift/pool";
import type { Report } from "../provider/drift/types";
import type { Row } from "./engine";
import { median } from "./scale-series";

const PROGRAM = join(ROOT, "bench", "programs", "drift");
const CLI = join(ROOT, "dist", "provider", "drift", "cli.js");
const PER_STACK = 15;

/**
 * Runs a command under bash; resolves with its wall time, the CPU time (user + system) of it and
 * every process it started (bash's `times`), which other load on the machine does not move as it
 * moves wall time, and the peak RSS of the command's own process (VmHWM).
 */
export function timed(cmd: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ seconds: number; cpu: number; peak: number; code: number }> {
  const t0 = Date.now();
  const times = join(cwd, `.times-${process.pid}`);
  const child = spawn("bash", ["-c", `${cmd}; code=$?; times > ${times}; exit $code`], { env, cwd, stdio: ["ignore", "ignore", "inherit"] });
  let peak = 0;
  const sample = () => {
    try {
      // The command is bash's child (bash does not exec the first of two commands).
      const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
      for (const pid of kids) {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        if (m) peak = Math.max(peak, Number(m[1]) * 1024);
      }
    } catch {
      // exited
    }
  };
  const timer = setInterval(sample, 50);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      clearInterval(timer);
      // `times`: the shell's user and system time, then its children's ("0m1.5s 0m0.2s").
      const secs = (t: string) => t.split(/\s+/).reduce((a, x) => a + Number(/(\d+)m/.exec(x)?.[1] ?? 0) * 60 + Number(/([\d.]+)s/.exec(x)?.[1] ?? 0), 0);
      let cpu = 0;
      try {
        cpu = readFileSync(times, "utf8").trim().split("\n").reduce((a, l) => a + secs(l), 0);
        unlinkSync(times);
      } catch {
        // killed before `times`
      }
      resolve({ seconds: (Date.now() - t0) / 1000, cpu, peak, code: code ?? -1 });
    });
  });
}

/** A copy of stack `from`'s checkpoint as stack `to` of the same project (its URNs renamed). */
export function cloneStack(backend: string, project: string, from: string, to: string): void {
  const dir = join(backend, ".pulumi", "stacks", project);
  const text = readFileSync(join(dir, `${from}.json`), "utf8")
    .split(`urn:pulumi:${from}::`).join(`urn:pulumi:${to}::`)
    .split(`"organization/${project}/${from}"`).join(`"organization/${project}/${to}"`);
  writeFileSync(join(dir, `${to}.json`), text);
}

const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

export async function runDrift(opts: { stacks: number; memoryStacks?: number; parallel?: number; rounds?: number }): Promise<Row[]> {
  const rows: Row[] = [];
  const parallel = opts.parallel ?? availableParallelism();
  const memoryStacks = opts.memoryStacks ?? 64;
  const emu = await startEmulator({ settings: { speed: 0 } });
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-drift-bench-"));
  const backend = join(dir, "backend");
  const env: Record<string, string> = {
    PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`, HOME: process.env.HOME ?? dir,
    PULUMI_HOME: join(dir, "home"), PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true", PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true", CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey,
  };
  const control = (method: string, path: string) => fetch(`${emu.baseUrl}/_emulator${path}`, { method, headers: method === "GET" ? {} : { "content-type": "application/json" } });
  const names = Array.from({ length: opts.stacks }, (_, i) => `d${i}`);
  try {
    process.stderr.write(`bench: drift: ${opts.stacks} stacks x ${PER_STACK} resources up (load ${load()})...\n`);
    await mapLimit(names, 2, async (name, i) => {
      const s = await openStack({
        programDir: PROGRAM, stackName: name, stateDir: dir, env,
        config: { sdk: i % 2 ? "native" : "dynamic", tag: `${name}-${process.pid}` },
      });
      const up = await s.stack.up();
      // Drift in 4: the service's image changed by hand.
      if (i < 4) {
        const res = await fetch(`${emu.baseUrl}/v1/services/${up.outputs.serviceId.value}`, {
          method: "PATCH", headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ source: { image: "nginx:1.28" } }),
        });
        if (!res.ok) throw new Error(`drift: ${res.status}`);
      }
    });
    // The shell loop's scratch project, as the command makes its own.
    const scratch = join(dir, "scratch");
    mkdirSync(scratch);
    writeFileSync(join(scratch, "Pulumi.yaml"), "name: drift-bench\nruntime: nodejs\n");
    symlinkSync(join(ROOT, "node_modules"), join(scratch, "node_modules"));
    const input = join(dir, "stacks.txt");
    writeFileSync(input, `${names.map((n) => `organization/drift-bench/${n}`).join("\n")}\n`);
    const loop = `xargs -P ${parallel} -I{} pulumi refresh --preview-only --run-program=false --non-interactive --stack {} > /dev/null < ${input}`;

    const out = join(dir, "report.json");
    // A project that installs the package, as a user's does: `npx` finds its bin in node_modules/.bin.
    const consumer = join(dir, "consumer");
    mkdirSync(join(consumer, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "drift-bench-consumer", version: "1.0.0", private: true }));
    writeFileSync(join(consumer, "Pulumi.yaml"), "name: drift-bench\nruntime: nodejs\n");
    symlinkSync(ROOT, join(consumer, "node_modules", "pulumi-cloudplatform"), "dir");
    symlinkSync(join("..", "pulumi-cloudplatform", "dist", "provider", "drift", "cli.js"), join(consumer, "node_modules", ".bin", "cloudplatform-drift"));
    const args = `--all --parallel ${parallel} --format json --out '${out}'`;
    const command = () => timed(`'${process.execPath}' '${CLI}' ${args}`, env, scratch);
    const viaNpx = () => timed(`npx cloudplatform-drift ${args}`, env, consumer);
    const shell = () => timed(loop, env, scratch);
    await command(); // warms the CLI, the plugins and the page cache
    const loadBefore = load();
    const rounds = opts.rounds ?? 3;
    const wall = { loop: [] as number[], command: [] as number[], npx: [] as number[] };
    const cpu = { loop: [] as number[], command: [] as number[], npx: [] as number[] };
    let peak = 0;
    let reads: [string, number][] = [];
    type Result = Awaited<ReturnType<typeof timed>>;
    const runs: Record<"loop" | "command" | "npx", () => Promise<Result>> = {
      loop: async () => {
        const l = await shell();
        if (l.code !== 0) throw new Error(`the shell loop exited ${l.code}`);
        return l;
      },
      command: async () => {
        await control("DELETE", "/counters");
        const c = await command();
        if (c.code !== 7) throw new Error(`cloudplatform-drift exited ${c.code}, expected 7 (drift in 4 stacks)`);
        const counters = (await (await control("GET", "/counters")).json()) as Record<string, { count: number }>;
        reads = Object.entries(counters).filter(([route]) => route.startsWith("GET /v1/")).map(([route, n]) => [route, n.count]);
        return c;
      },
      npx: async () => {
        const x = await viaNpx();
        if (x.code !== 7) throw new Error(`npx cloudplatform-drift exited ${x.code}, expected 7`);
        return x;
      },
    };
    const order = ["loop", "command", "npx"] as const;
    for (let round = 0; round < rounds; round++) {
      // Each round starts with the next one of the three, so none always runs first or last.
      const got = {} as Record<(typeof order)[number], Result>;
      for (let k = 0; k < order.length; k++) {
        const which = order[(round + k) % order.length];
        got[which] = await runs[which]();
      }
      const { loop: l, command: c, npx: x } = got;
      peak = Math.max(peak, c.peak);
      for (const [k, r] of [["loop", l], ["command", c], ["npx", x]] as const) {
        wall[k].push(r.seconds);
        cpu[k].push(r.cpu);
      }
      process.stderr.write(`bench: drift: round ${round + 1}: loop ${l.seconds.toFixed(1)}s (CPU ${l.cpu.toFixed(1)}s), command ${c.seconds.toFixed(1)}s (CPU ${c.cpu.toFixed(1)}s): ${(c.seconds / l.seconds).toFixed(2)}x, npx ${x.seconds.toFixed(1)}s (CPU ${x.cpu.toFixed(1)}s): ${(x.seconds / l.seconds).toFixed(2)}x (load ${load()})\n`);
    }
    // Each round's ratio (its runs were next to each other), then the median over the rounds.
    const ratios = (k: "command" | "npx", of: typeof wall) => of[k].map((v, i) => v / of.loop[i]);
    const report = JSON.parse(readFileSync(out, "utf8")) as Report;
    const n = opts.stacks * PER_STACK;
    const total = reads.reduce((a, [, c]) => a + c, 0);
    process.stderr.write(`bench: drift: reads of one check of ${opts.stacks} stacks, by route:\n${reads.map(([r, c]) => `  ${c} ${r}`).join("\n")}\n`);
    const row = (id: string, what: string, k: "command" | "npx", of: typeof wall) => {
      const r = ratios(k, of);
      const m = median(r);
      rows.push({ id, what: `${what} (median of ${rounds} rounds, each ${r.map((x) => x.toFixed(2)).join(", ")}; load ${loadBefore})`, value: `${median(of[k]).toFixed(1)}s`, baseline: `${median(of.loop).toFixed(1)}s`, ratio: `${m.toFixed(2)}x`, target: "<= 1.1x", n: opts.stacks, ok: m <= 1.1 });
    };
    row("D1", `drift: ${opts.stacks} stacks x ${PER_STACK} (half dynamic, half native) vs xargs -P ${parallel} refresh previews, wall time`, "command", wall);
    row("D1n", "drift: the same, started through npx from a project that installs the package, wall time", "npx", wall);
    row("D1c", "drift: the same, CPU time of each and every process it started", "command", cpu);
    row("D1nc", "drift: through npx, CPU time", "npx", cpu);
    rows.push({ id: "D2", what: `drift: API reads per resource (${total} GETs, ${report.summary.resourcesChecked} resources checked, ${report.summary.stacksDrifted} stacks drifted)`, value: (total / n).toFixed(2), baseline: "-", ratio: "-", target: "1/resource", n: opts.stacks, ok: total === n });

    // D3: the same stacks, each copied until there are `memoryStacks`.
    const copies = Math.ceil(memoryStacks / opts.stacks) - 1;
    for (let k = 1; k <= copies; k++) for (const name of names) if (opts.stacks * k + names.indexOf(name) < memoryStacks) cloneStack(backend, "drift-bench", name, `${name}c${k}`);
    const big = await command();
    const bigReport = JSON.parse(readFileSync(out, "utf8")) as Report;
    const { stacksChecked, stacksFailed } = bigReport.summary;
    if (stacksChecked !== memoryStacks || stacksFailed) throw new Error(`the memory run checked ${stacksChecked} stacks (${stacksFailed} failed), expected ${memoryStacks}`);
    process.stderr.write(`bench: drift: ${memoryStacks} stacks checked in ${big.seconds.toFixed(1)}s (load ${load()})\n`);
    rows.push({ id: "D3", what: `drift: the command's peak RSS, its own process (${opts.stacks} stacks: ${(peak / 2 ** 20).toFixed(0)}MB; the CLIs are apart)`, value: `${(big.peak / 2 ** 20).toFixed(0)}MB`, baseline: "-", ratio: "-", target: "<= 200MB", n: memoryStacks, ok: big.peak > 0 && big.peak <= 200 * 2 ** 20 });
  } finally {
    // The emulator goes with this process and the backend with `dir`: nothing to destroy. The
    // stacks' config files are in the program's folder.
    for (const name of names) rmSync(join(PROGRAM, `Pulumi.${name}.yaml`), { force: true });
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (require.main === module) {
  const num = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  runDrift({ stacks: num("--drift-stacks", 16), memoryStacks: num("--drift-memory-stacks", 64), rounds: num("--drift-rounds", 3) }).then((rows) => require("./engine").printEngine(rows, "drift measure (real Pulumi CLI)"), (err) => {
    console.error(err);
    process.exit(1);
  });
}
