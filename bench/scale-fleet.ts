// `make bench-scale`, fleets: `cloudplatform-drift` over N stacks in 4 shards at once (each checking
// one stack at a time), then `merge`, against the shell loop at the same parallelism (xargs -P 4
// of the same refresh previews). The stacks are those of bench/programs/drift (15 resources each,
// half dynamic, half native, drift in 4): the first up for real, the rest copies of their
// checkpoints (same objects, same reads). Wall time, CPU time of each and every process it started
// (other load does not move it as it moves wall time), and each shard's peak RSS.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../emulator";
import { mapLimit } from "../provider/drift/pool";
import type { Report } from "../provider/drift/types";
import { openStack, ROOT, TOOLS_BIN } from "../scripts/pulumi-env";
import { cloneStack, timed } from "./drift";
import { linear, log, type Series, within } from "./scale-series";

const PROGRAM = join(ROOT, "bench", "programs", "drift");
const CLI = join(ROOT, "dist", "provider", "drift", "cli.js");
const SHARDS = 4;
const DRIFTED = 4;

export async function runFleets(sizes: number[]): Promise<Series[]> {
  const emu = await startEmulator({ settings: { speed: 0 } });
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-fleet-bench-"));
  const backend = join(dir, "backend");
  const env: Record<string, string> = {
    PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`, HOME: process.env.HOME ?? dir,
    PULUMI_HOME: join(dir, "home"), PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true", PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true", CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey,
  };
  const base = Array.from({ length: Math.min(...sizes) }, (_, i) => `f${i}`);
  const points: { size: number; cmd: { seconds: number; cpu: number; peak: number }; loop: { seconds: number; cpu: number } }[] = [];
  try {
    log(`fleets: ${base.length} stacks up`);
    await mapLimit(base, 2, async (name, i) => {
      const s = await openStack({ programDir: PROGRAM, stackName: name, stateDir: dir, env, config: { sdk: i % 2 ? "native" : "dynamic", tag: `${name}-${process.pid}` } });
      const up = await s.stack.up();
      if (i < DRIFTED) {
        const res = await fetch(`${emu.baseUrl}/v1/services/${up.outputs.serviceId.value}`, {
          method: "PATCH", headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ source: { image: "nginx:1.28" } }),
        });
        if (!res.ok) throw new Error(`fleets: drift by hand answered ${res.status}`);
      }
    });
    const scratch = join(dir, "scratch");
    mkdirSync(scratch);
    writeFileSync(join(scratch, "Pulumi.yaml"), "name: drift-bench\nruntime: nodejs\n");
    symlinkSync(join(ROOT, "node_modules"), join(scratch, "node_modules"));
    let have = base.length;
    for (const size of sizes) {
      for (; have < size; have++) cloneStack(backend, "drift-bench", base[have % base.length], `f${have}`);
      const input = join(dir, "stacks.txt");
      writeFileSync(input, `${Array.from({ length: size }, (_, i) => `organization/drift-bench/f${i}`).join("\n")}\n`);
      const shards = Array.from({ length: SHARDS }, (_, k) => `'${process.execPath}' '${CLI}' --all --shard ${k + 1}/${SHARDS} --parallel 1 --format json --out shard-${k + 1}.json &`).join(" ");
      const merged = join(dir, "merged.json");
      const command = `${shards} wait; '${process.execPath}' '${CLI}' merge ${Array.from({ length: SHARDS }, (_, k) => `shard-${k + 1}.json`).join(" ")} --format json --out '${merged}'`;
      const loop = `xargs -P ${SHARDS} -I{} pulumi refresh --preview-only --run-program=false --non-interactive --stack {} > /dev/null < ${input}`;
      if (size === sizes[0]) await timed(command, env, scratch); // warms the CLIs, the plugins and the page cache
      log(`fleets: ${size} stacks, the shell loop`);
      const l = await timed(loop, env, scratch);
      if (l.code !== 0) throw new Error(`the shell loop exited ${l.code}`);
      log(`fleets: ${size} stacks, ${SHARDS} shards and merge`);
      const c = await timed(command, env, scratch);
      const report = JSON.parse(readFileSync(merged, "utf8")) as Report;
      if (c.code !== 7 || report.summary.stacksChecked !== size || report.summary.stacksFailed) {
        throw new Error(`fleets: the merge exited ${c.code} with ${report.summary.stacksChecked} stacks checked and ${report.summary.stacksFailed} failed, expected 7 and ${size}`);
      }
      points.push({ size, cmd: c, loop: l });
    }
  } catch (err) {
    log(`fleets failed: ${(err as Error).message.split("\n").filter((l) => /error/i.test(l)).slice(0, 5).join(" | ") || (err as Error).message.slice(0, 500)}`);
    throw err;
  } finally {
    for (const name of base) rmSync(join(PROGRAM, `Pulumi.${name}.yaml`), { force: true });
    await emu.close();
    // A CLI cut short may still be writing its backend for a moment.
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
  const ratio = within(1.1);
  const loopName = `xargs -P ${SHARDS} pulumi refresh --preview-only`;
  return [
    {
      family: "fleets", id: "F1", what: `cloudplatform-drift, ${SHARDS} shards then merge, wall time`, unit: "s", baselineName: loopName,
      points: points.map((p) => ({ size: p.size, value: p.cmd.seconds, baseline: p.loop.seconds })), goal: "<= 1.1x the loop at the largest size",
      check: (p) => ratio(p) && linear(p), goalMet: ratio,
    },
    {
      family: "fleets", id: "F1c", what: "the same, CPU time of every process each started", unit: "s", baselineName: loopName,
      points: points.map((p) => ({ size: p.size, value: p.cmd.cpu, baseline: p.loop.cpu })), goal: "<= 1.1x the loop at the largest size",
      check: (p) => ratio(p) && linear(p), goalMet: ratio,
    },
    {
      family: "fleets", id: "F2", what: "peak RSS of a shard's own process (the largest of the four)", unit: "MB",
      points: points.map((p) => ({ size: p.size, value: p.cmd.peak / 2 ** 20 })), goal: "<= 200 MB", check: (p) => p.every((x) => x.value > 0 && x.value <= 200),
    },
  ];
}
