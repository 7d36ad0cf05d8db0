// `make bench-scale`, stacks: `pulumi preview`, `up`, `refresh` and `destroy` of N resources of
// mixed types through the real CLI, on the dynamic SDK beside N resources of no-op dynamic
// providers, and on the native SDK beside N resources of a no-op plugin (each no-op resource has
// the inputs and properties of the type it stands in for: bench/programs/scale/shape.js), against
// an in-process emulator (lifecycles instant, no rate limit) that counts the API calls of each
// operation, ours and its baseline one operation each in turn; at the largest size, preview and
// refresh three times each (the median time kept, and the most calls). Also the peak RSS of the
// provider processes during the largest `up`s. Beside wall time, the CPU time of the whole
// process tree (the CLI, the program, the providers, the emulator), which other load on the
// machine does not move as it moves wall time.
import { execFile } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { startEmulator } from "../emulator";
import { CloudPlatformClient } from "../provider/client";
import { openStack, ROOT, type StackHandle } from "../scripts/pulumi-env";
import { installedApp, sampleProviderRss } from "./engine";
import { last, linear, log, median, type Series, treeCpuSeconds, within } from "./scale-series";

const OPS = ["preview", "up", "refresh", "destroy"] as const;
type Op = (typeof OPS)[number];
const SDKS = ["dynamic", "native"] as const;
type Sdk = (typeof SDKS)[number];
const MODES = ["noop", "mixed"] as const;
type Mode = (typeof MODES)[number];
/** Samples of preview and refresh at the largest size: one moved by a third between runs. */
const SAMPLES = 3;
const DYNAMIC_HOST = /cmd\/dynamic-provider/;
const PLUGIN = /pulumi-resource-cloudplatform/;
const NOOP_PLUGIN = /pulumi-resource-noopbench/;

interface Run {
  seconds: Record<Op, number>;
  cpu: Record<Op, number>;
  calls: Record<Op, number>;
  /** Peak RSS of the provider process during the up (bytes). */
  rss: number;
  /** The checkpoint's bytes per resource after the up (the engine rewrites it after each step). */
  stateBytes: number;
}

export async function runStacks(sizes: number[]): Promise<Series[]> {
  const emu = await startEmulator({ settings: { speed: 0 } });
  let hits = 0;
  const count = emu.emu.count.bind(emu.emu);
  emu.emu.count = (route: string, status: number) => {
    hits++;
    count(route, status);
  };
  const apps = { dynamic: installedApp(join(ROOT, "bench", "programs", "scale")), native: installedApp(join(ROOT, "bench", "programs", "scale-native")) };
  // The baselines' shape (one file for the dynamic program, the native one and its no-op plugin).
  copyFileSync(join(ROOT, "bench", "programs", "scale", "shape.js"), join(apps.native.dir, "shape.js"));
  const results = new Map<string, Run>();
  let seq = 0;
  const open = (sdk: Sdk, mode: Mode, n: number): Promise<StackHandle> => {
    const tag = `s${process.pid % 10_000}x${seq++}`;
    return openStack({
      programDir: apps[sdk].dir, stackName: `scale-${tag}`,
      env: { CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey },
      config: { mode, count: String(n), tag },
    });
  };
  // The no-op and ours, one operation each in turn, so that other load on the machine weighs on
  // both alike; preview and refresh (seconds each) `samples` times, keeping the median.
  const pair = async (sdk: Sdk, n: number, samples: number): Promise<Record<Mode, Run>> => {
    const stacksOf: Partial<Record<Mode, StackHandle>> = {};
    try {
      for (const mode of MODES) stacksOf[mode] = await open(sdk, mode, n);
      return await measure(sdk, n, samples, stacksOf as Record<Mode, StackHandle>);
    } finally {
      for (const s of Object.values(stacksOf)) await s.dispose().catch(() => undefined);
    }
  };
  const measure = async (sdk: Sdk, n: number, samples: number, stacksOf: Record<Mode, StackHandle>): Promise<Record<Mode, Run>> => {
    const taken = { noop: emptySamples(), mixed: emptySamples() };
    const runs = { noop: { rss: 0, stateBytes: 0 }, mixed: { rss: 0, stateBytes: 0 } };
    for (const op of OPS) {
      const rounds = op === "preview" || op === "refresh" ? samples : 1;
      for (let round = 0; round < rounds; round++) {
        for (const mode of MODES) {
          const s = stacksOf[mode];
          log(`stacks: ${op} of ${n} ${mode === "noop" ? "no-op" : "mixed"} resources, ${sdk} SDK${rounds > 1 ? ` (${round + 1} of ${rounds})` : ""}`);
          const sample = op === "up" ? sampleProviderRss(sdk === "dynamic" ? DYNAMIC_HOST : mode === "noop" ? NOOP_PLUGIN : PLUGIN) : undefined;
          const h0 = hits;
          const t0 = process.hrtime.bigint();
          const c0 = treeCpuSeconds();
          if (op === "preview") await s.stack.preview();
          else if (op === "up") await s.stack.up();
          else if (op === "refresh") await s.stack.refresh();
          else await s.stack.destroy();
          taken[mode].seconds[op].push(Number(process.hrtime.bigint() - t0) / 1e9);
          taken[mode].cpu[op].push(treeCpuSeconds() - c0);
          taken[mode].calls[op].push(hits - h0);
          if (sample) runs[mode].rss = await sample();
          if (op === "up") runs[mode].stateBytes = JSON.stringify(await s.stack.exportStack()).length / n;
        }
      }
    }
    const of = (mode: Mode): Run => ({ ...runs[mode], ...summarised(taken[mode]) });
    return { noop: of("noop"), mixed: of("mixed") };
  };
  let perRead = NaN;
  try {
    for (const n of sizes) {
      for (const sdk of SDKS) {
        const { noop, mixed } = await pair(sdk, n, n === sizes[sizes.length - 1] ? SAMPLES : 1);
        results.set(`${sdk} noop ${n}`, noop);
        results.set(`${sdk} mixed ${n}`, mixed);
      }
    }
    log("stacks: the floor of a read, bare GETs of one Project");
    perRead = await bareReadCpu(emu);
    log(`stacks: a bare GET costs ${(perRead * 1000).toFixed(2)} ms of CPU, client and emulator together`);
  } finally {
    await emu.close();
    apps.dynamic.dispose();
    apps.native.dispose();
  }
  const at = (key: string) => results.get(key)!;
  const ratio = within(1.1);
  const series: Series[] = [];
  for (const sdk of SDKS) {
    for (const op of OPS) {
      series.push({
        family: "stacks", id: `S-${sdk[0]}${op[0]}c`, what: `${op}, ${sdk} SDK, CPU time of every process`, unit: "s",
        baselineName: sdk === "dynamic" ? "no-op dynamic provider" : "no-op native plugin",
        points: sizes.map((n) => ({ size: n, value: at(`${sdk} mixed ${n}`).cpu[op], baseline: at(`${sdk} noop ${n}`).cpu[op] })),
        goal: "<= 1.1x the no-op at the largest size", check: (p) => ratio(p) && linear(p), goalMet: ratio,
      });
      series.push({
        family: "stacks", id: `S-${sdk[0]}${op[0]}`, what: `${op}, ${sdk} SDK, mixed resources`, unit: "s",
        baselineName: sdk === "dynamic" ? "no-op dynamic provider" : "no-op native plugin",
        points: sizes.map((n) => ({ size: n, value: at(`${sdk} mixed ${n}`).seconds[op], baseline: at(`${sdk} noop ${n}`).seconds[op] })),
        goal: "<= 1.1x the no-op at the largest size", check: (p) => ratio(p) && linear(p), goalMet: ratio,
      });
    }
    // What one read per resource costs at the least: the no-op's refresh plus, per resource, a bare
    // GET (client and emulator; no provider code). ≤ 1.1x the no-op is below it when a GET costs more
    // than a tenth of the no-op's refresh per resource.
    series.push({
      family: "stacks", id: `S-${sdk[0]}rf`, what: `refresh floor, ${sdk} SDK: the no-op's refresh CPU plus one bare GET per resource`, unit: "s",
      baselineName: sdk === "dynamic" ? "no-op dynamic provider" : "no-op native plugin",
      points: sizes.map((n) => ({ size: n, value: at(`${sdk} noop ${n}`).cpu.refresh + n * perRead, baseline: at(`${sdk} noop ${n}`).cpu.refresh })),
      goal: "-",
    });
    // The baselines answer values as long as the platform's under the same package identity
    // (bench/programs/scale/shape.js): what remains between the two is ours (type tokens, the SDK's
    // own inputs, stack frames through it).
    series.push({
      family: "stacks", id: `S-${sdk[0]}sb`, what: `state bytes per resource after up, ${sdk} SDK`, unit: "bytes",
      baselineName: sdk === "dynamic" ? "no-op dynamic provider" : "no-op native plugin",
      points: sizes.map((n) => ({ size: n, value: at(`${sdk} mixed ${n}`).stateBytes, baseline: at(`${sdk} noop ${n}`).stateBytes })),
      goal: "-",
    });
    series.push({
      family: "stacks", id: `S-${sdk[0]}#`, what: `API calls per resource: preview, ${sdk} SDK`, unit: "calls",
      points: sizes.map((n) => ({ size: n, value: at(`${sdk} mixed ${n}`).calls.preview / n })),
      goal: "0", check: (p) => p.every((x) => x.value === 0),
    });
    series.push({
      family: "stacks", id: `S-${sdk[0]}#`, what: `API calls per resource: refresh, ${sdk} SDK`, unit: "calls",
      points: sizes.map((n) => ({ size: n, value: at(`${sdk} mixed ${n}`).calls.refresh / n })),
      goal: "1 read per resource", check: (p) => p.every((x) => x.value <= 1),
    });
  }
  const mb = (b: number) => b / 2 ** 20;
  series.push({
    family: "providers", id: "R-d", what: "peak RSS of the dynamic provider host during up", unit: "MB", baselineName: "no-op dynamic provider's host",
    points: sizes.map((n) => ({ size: n, value: mb(at(`dynamic mixed ${n}`).rss), baseline: mb(at(`dynamic noop ${n}`).rss) })), goal: "-",
  });
  series.push({
    family: "providers", id: "R-n", what: "peak RSS of the native plugin during up", unit: "MB", baselineName: "no-op native plugin",
    points: sizes.map((n) => ({ size: n, value: mb(at(`native mixed ${n}`).rss), baseline: mb(at(`native noop ${n}`).rss) })), goal: "-",
  });
  series.push({
    family: "providers", id: "R", what: "provider processes together (dynamic host + native plugin)", unit: "MB", baselineName: "the no-op host + the no-op plugin",
    points: sizes.map((n) => ({ size: n, value: mb(at(`dynamic mixed ${n}`).rss + at(`native mixed ${n}`).rss), baseline: mb(at(`dynamic noop ${n}`).rss + at(`native noop ${n}`).rss) })),
    goal: "<= 250 MB at the largest size", check: (p) => last(p).value <= 250,
  });
  return series;
}

/** CPU seconds one bare GET of a Project costs, client (bench/scale-get.ts) and emulator together. */
async function bareReadCpu(emu: Awaited<ReturnType<typeof startEmulator>>, count = 3000): Promise<number> {
  const client = new CloudPlatformClient({ apiKey: emu.apiKey, baseUrl: emu.baseUrl });
  const { id } = await client.create<{ id: string }>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "scale-floor" });
  try {
    const c0 = process.cpuUsage();
    const out = await new Promise<string>((done, fail) =>
      execFile(process.execPath, [join(__dirname, "scale-get.js"), `${emu.baseUrl}/v1/projects/${id}`, emu.apiKey, String(count)], (err, stdout) => (err ? fail(err) : done(stdout))));
    const c = process.cpuUsage(c0);
    return ((JSON.parse(out) as { cpu: number }).cpu + (c.user + c.system) / 1e6) / count;
  } finally {
    await client.delete(`/v1/projects/${id}`);
    await client.close();
  }
}

type Samples = Record<"seconds" | "cpu" | "calls", Record<Op, number[]>>;

function emptySamples(): Samples {
  const each = () => Object.fromEntries(OPS.map((op) => [op, [] as number[]])) as Record<Op, number[]>;
  return { seconds: each(), cpu: each(), calls: each() };
}

/**
 * Each operation's samples as one value: the median of its times, and the most API calls any
 * sample made (the calls' goals are bounds, which one sample over them must not hide).
 */
function summarised(taken: Samples): Pick<Run, "seconds" | "cpu" | "calls"> {
  const of = (m: Record<Op, number[]>, pick: (xs: number[]) => number) => Object.fromEntries(OPS.map((op) => [op, pick(m[op])])) as Record<Op, number>;
  return { seconds: of(taken.seconds, median), cpu: of(taken.cpu, median), calls: of(taken.calls, (xs) => Math.max(...xs)) };
}
