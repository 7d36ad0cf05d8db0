// `node dist/bench/drift-harness.js [--rounds 3] [--drifted]`, row D4: cloudplatform-drift over the drift
// harness's stacks (test/drift/harness: a dynamic, a native and a Python stack, each holding every
// resource type, 25 resources) against the shell loop (`xargs -P 2 pulumi refresh --preview-only`)
// over the same stacks at the same parallelism, the command started directly and through `npx`
// from a project that installs the package, in one process run, each taking its turn to go first.
// With --drifted each stack's web service gets its image and an env var changed by hand first.
// Printed beside the target; nothing is asserted.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFile } from "node:child_process";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startEmulator } from "../emulator";
import { openStack, ROOT, TOOLS_BIN } from "../scripts/pulumi-env";
import { fleetSpec } from "../test/drift/harness/declared";
import { timed } from "./drift";
import type { Row } from "./engine";
import { median } from "./scale-series";

const PROGRAM = join(ROOT, "test", "programs", "drift-harness");
const CLI = join(ROOT, "dist", "provider", "drift", "cli.js");
const PARALLEL = 2;
const run = promisify(execFile);
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

export async function runDriftHarness(opts: { rounds?: number; drifted?: boolean } = {}): Promise<Row[]> {
  const emu = await startEmulator({ settings: { speed: 0 } });
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-drift-harness-bench-"));
  const backend = join(dir, "backend");
  const env: Record<string, string> = {
    PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`, HOME: process.env.HOME ?? dir, PULUMI_ROOT: join(ROOT, ".tools"),
    PULUMI_HOME: join(dir, "home"), PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true", PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true", CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey,
  };
  const stacks = [["dyn", "dynamic"], ["nat", "native"], ["py", "python"]] as const;
  const control = (path: string, body: unknown) => fetch(`${emu.baseUrl}/_emulator${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  try {
    process.stderr.write(`bench: drift harness: 3 stacks up (load ${load()})...\n`);
    await Promise.all(stacks.map(async ([stack, sdk]) => {
      const { spec, secrets } = fleetSpec(stack, `b${process.pid}`);
      await control("/dns/delegations", { domain: spec.zone });
      if (sdk === "python") {
        const work = join(dir, `work-${stack}`);
        mkdirSync(work, { recursive: true });
        await run(join(ROOT, ".venv", "bin", "python"), [join(ROOT, "test", "python", "drift_harness.py")], {
          env: { ...env, WORK_DIR: work, STACK: stack, PROJECT: "drift-harness", SPEC: JSON.stringify(spec), PYTHONPATH: join(ROOT, "test", "python"), ...Object.fromEntries(Object.entries(secrets).map(([k, v]) => [`SECRET_${k}`, v])) },
          timeout: 900_000,
        });
        return;
      }
      const s = await openStack({
        programDir: PROGRAM, stackName: stack, stateDir: dir, env, inProcess: true,
        config: { sdk, spec: JSON.stringify(spec), ...Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, { value: v, secret: true }])) },
      });
      await s.stack.up();
    }));
    if (opts.drifted) {
      // A few edits by hand in each stack: the image, an env var, a record deleted.
      const api = (method: string, path: string, body?: unknown) => fetch(`${emu.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      for (const [stack] of stacks) {
        const cp = JSON.parse(readFileSync(join(backend, ".pulumi", "stacks", "drift-harness", `${stack}.json`), "utf8")) as { checkpoint: { latest: { resources: { urn: string; id: string }[] } } };
        const id = cp.checkpoint.latest.resources.find((r) => /Service::web$/.test(r.urn))!.id;
        for (const [path, body] of [[`/v1/services/${id}`, { source: { image: "nginx:1.28" } }], [`/v1/services/${id}/env-vars`, { envVars: [{ key: "MODE", value: "debug" }] }]] as const) {
          const res = await api("PATCH", path, body);
          if (!res.ok) throw new Error(`PATCH ${path}: ${res.status}`);
        }
      }
    }
    const scratch = join(dir, "scratch");
    mkdirSync(scratch);
    writeFileSync(join(scratch, "Pulumi.yaml"), "name: drift-harness\nruntime: nodejs\n");
    symlinkSync(join(ROOT, "node_modules"), join(scratch, "node_modules"));
    const input = join(dir, "stacks.txt");
    writeFileSync(input, `${stacks.map(([s]) => `organization/drift-harness/${s}`).join("\n")}\n`);
    const loop = `xargs -P ${PARALLEL} -I{} pulumi refresh --preview-only --run-program=false --non-interactive --stack {} > /dev/null < ${input}`;
    const consumer = join(dir, "consumer");
    mkdirSync(join(consumer, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "drift-harness-bench-consumer", version: "1.0.0", private: true }));
    writeFileSync(join(consumer, "Pulumi.yaml"), "name: drift-harness\nruntime: nodejs\n");
    symlinkSync(ROOT, join(consumer, "node_modules", "pulumi-cloudplatform"), "dir");
    symlinkSync(join("..", "pulumi-cloudplatform", "dist", "provider", "drift", "cli.js"), join(consumer, "node_modules", ".bin", "cloudplatform-drift"));
    const args = `--all --parallel ${PARALLEL} --format json --out '${join(dir, "report.json")}'`;
    const expected = opts.drifted ? 7 : 0;
    const runs = {
      loop: () => timed(loop, env, scratch),
      command: () => timed(`'${process.execPath}' '${CLI}' ${args}`, env, scratch),
      npx: () => timed(`npx cloudplatform-drift ${args}`, env, consumer),
    };
    await runs.command(); // warms the CLI, the plugins and the page cache
    const loadBefore = load();
    const order = ["loop", "command", "npx"] as const;
    const wall = { loop: [] as number[], command: [] as number[], npx: [] as number[] };
    const rounds = opts.rounds ?? 3;
    for (let round = 0; round < rounds; round++) {
      const got = {} as Record<(typeof order)[number], Awaited<ReturnType<typeof timed>>>;
      for (let k = 0; k < order.length; k++) {
        const which = order[(round + k) % order.length];
        got[which] = await runs[which]();
        const want = which === "loop" ? 0 : expected;
        if (got[which].code !== want) throw new Error(`${which} exited ${got[which].code}, expected ${want}`);
      }
      for (const k of order) wall[k].push(got[k].seconds);
      process.stderr.write(`bench: drift harness: round ${round + 1}: loop ${got.loop.seconds.toFixed(1)}s, command ${got.command.seconds.toFixed(1)}s (${(got.command.seconds / got.loop.seconds).toFixed(2)}x), npx ${got.npx.seconds.toFixed(1)}s (${(got.npx.seconds / got.loop.seconds).toFixed(2)}x) (load ${load()})\n`);
    }
    const rows: Row[] = [];
    const row = (id: string, what: string, k: "command" | "npx") => {
      const r = wall[k].map((v, i) => v / wall.loop[i]);
      const m = median(r);
      rows.push({ id, what: `${what} (median of ${rounds} rounds, each ${r.map((x) => x.toFixed(2)).join(", ")}; load ${loadBefore})`, value: `${median(wall[k]).toFixed(1)}s`, baseline: `${median(wall.loop).toFixed(1)}s`, ratio: `${m.toFixed(2)}x`, target: "<= 1.1x", n: stacks.length, ok: m <= 1.1 });
    };
    const state = opts.drifted ? "drifted" : "clean";
    row("D4", `drift: the harness's 3 stacks (dynamic, native, Python; 25 resources each, ${state}) vs xargs -P ${PARALLEL} refresh previews, wall time`, "command");
    row("D4n", "drift: the same, started through npx from a project that installs the package", "npx");
    return rows;
  } finally {
    for (const [stack] of stacks) rmSync(join(PROGRAM, `Pulumi.${stack}.yaml`), { force: true });
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const i = process.argv.indexOf("--rounds");
  runDriftHarness({ rounds: i >= 0 ? Number(process.argv[i + 1]) : 3, drifted: process.argv.includes("--drifted") })
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    .then((rows) => require("./engine").printEngine(rows, "drift harness measure (real Pulumi CLI)"), (err) => {
      console.error(err);
      process.exit(1);
    });
}
