// `make bench` (or `node dist/bench/drift.js`), the drift rows (D1-D3): cloudplatform-drift over
// 16 stacks x 15 resources, half dynamic TypeScript and half native, drift in 4, against the same
// refresh previews run by a shell loop (xargs -P) with the same parallelism; the API reads per
// resource from the emulator's counters; the command's peak RSS. `--drift-stacks 64` for the
// memory target's size. Printed beside their targets; nothing here is asserted.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../emulator";
import { openStack, ROOT, TOOLS_BIN, type StackHandle } from "../scripts/pulumi-env";
import { mapLimit } from "../provider/drift/pool";
import type { Row } from "./engine";

const PROGRAM = join(ROOT, "bench", "programs", "drift");
const CLI = join(ROOT, "dist", "provider", "drift", "cli.js");
const PER_STACK = 15;

/** Runs a command; resolves with its wall time and the peak RSS of its own process (VmHWM). */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ seconds: number; peak: number; code: number }> {
  const t0 = Date.now();
  const child = spawn(cmd, args, { env, cwd, stdio: ["ignore", "ignore", "inherit"] });
  let peak = 0;
  const sample = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // exited
    }
  }, 50);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      clearInterval(sample);
      resolve({ seconds: (Date.now() - t0) / 1000, peak, code: code ?? -1 });
    });
  });
}

export async function runDrift(opts: { stacks: number; parallel?: number }): Promise<Row[]> {
  const rows: Row[] = [];
  const parallel = opts.parallel ?? availableParallelism();
  const emu = await startEmulator({ settings: { speed: 0 } });
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-drift-bench-"));
  const env: Record<string, string> = {
    PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`, HOME: process.env.HOME ?? dir,
    PULUMI_HOME: join(dir, "home"), PULUMI_BACKEND_URL: `file://${join(dir, "backend")}`, PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true", PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true", CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey,
  };
  const stacks: StackHandle[] = [];
  try {
    process.stderr.write(`bench: drift: ${opts.stacks} stacks x ${PER_STACK} resources up...\n`);
    stacks.push(...await mapLimit(Array.from({ length: opts.stacks }, (_, i) => i), 2, async (i) => {
      const s = await openStack({
        programDir: PROGRAM, stackName: `d${i}`, stateDir: dir, env,
        config: { sdk: i % 2 ? "native" : "dynamic", tag: `d${i}-${process.pid}` },
      });
      const up = await s.stack.up();
      // Drift in 4: the service's image changed by hand.
      if (i < 4) {
        const res = await fetch(`${emu.baseUrl}/v1/services/${up.outputs.serviceId.value}`, {
          method: "PATCH", headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ source: { image: "nginx:1.28" } }),
        });
        if (!res.ok) throw new Error(`drift: ${res.status}`);
      }
      return s;
    }));
    const names = stacks.map((s) => `organization/drift-bench/${s.stack.name}`);
    // The shell loop's scratch project, as the command makes its own.
    const scratch = join(dir, "scratch");
    mkdirSync(scratch);
    writeFileSync(join(scratch, "Pulumi.yaml"), "name: drift-bench\nruntime: nodejs\n");
    symlinkSync(join(ROOT, "node_modules"), join(scratch, "node_modules"));
    const loop = `xargs -P ${parallel} -I{} pulumi refresh --preview-only --run-program=false --non-interactive --stack {} > /dev/null`;
    const input = join(dir, "stacks.txt");
    writeFileSync(input, `${names.join("\n")}\n`);

    const command = () => timed(process.execPath, [CLI, "--all", "--parallel", String(parallel), "--format", "json", "--out", join(dir, "report.json")], env, ROOT);
    const shell = () => timed("bash", ["-c", `${loop} < ${input}`], env, scratch);
    await command(); // warms the CLI and the plugins
    let cmdBest = Infinity;
    let loopBest = Infinity;
    let peak = 0;
    let reads = 0;
    for (let round = 0; round < 2; round++) {
      const l = await shell();
      loopBest = Math.min(loopBest, l.seconds);
      await fetch(`${emu.baseUrl}/_emulator/counters`, { method: "DELETE" });
      const c = await command();
      if (c.code !== 7) throw new Error(`cloudplatform-drift exited ${c.code}, expected 7 (drift in 4 stacks)`);
      cmdBest = Math.min(cmdBest, c.seconds);
      peak = Math.max(peak, c.peak);
      const counters = (await (await fetch(`${emu.baseUrl}/_emulator/counters`)).json()) as Record<string, { count: number }>;
      reads = Object.entries(counters).filter(([route]) => route.startsWith("GET /v1/")).reduce((n, [, c]) => n + c.count, 0);
    }
    const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
    const n = opts.stacks * PER_STACK;
    rows.push({ id: "D1", what: `drift: ${opts.stacks} stacks x ${PER_STACK} (half dynamic, half native) vs xargs -P ${parallel} refresh previews (best of 2)`, value: `${cmdBest.toFixed(1)}s`, baseline: `${loopBest.toFixed(1)}s`, ratio: `${(cmdBest / loopBest).toFixed(2)}x`, target: "<= 1.1x", n: opts.stacks, ok: cmdBest / loopBest <= 1.1 });
    rows.push({ id: "D2", what: `drift: API reads per resource (${reads} GETs, ${report.summary.resourcesChecked} resources checked, ${report.summary.stacksDrifted} stacks drifted)`, value: (reads / n).toFixed(2), baseline: "-", ratio: "-", target: "1/resource", n: opts.stacks, ok: reads === n });
    rows.push({ id: "D3", what: "drift: the command's peak RSS (its own process; the CLI's are apart)", value: `${(peak / 2 ** 20).toFixed(0)}MB`, baseline: "-", ratio: "-", target: `<= 200MB at 64 stacks`, n: opts.stacks, ok: peak > 0 && peak <= 200 * 2 ** 20 });
  } finally {
    process.stderr.write("bench: drift: destroying...\n");
    await mapLimit(stacks, 2, async (s) => {
      await s.stack.destroy().catch(() => {});
      await s.stack.workspace.removeStack(s.stack.name, { force: true }).catch(() => {});
    });
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (require.main === module) {
  const i = process.argv.indexOf("--drift-stacks");
  const stacks = i >= 0 ? Number(process.argv[i + 1]) : 16;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  runDrift({ stacks }).then((rows) => require("./engine").printEngine(rows, "drift measure (real Pulumi CLI)"), (err) => {
    console.error(err);
    process.exit(1);
  });
}
