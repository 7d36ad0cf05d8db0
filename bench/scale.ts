// `make bench-scale`: cost against size at three sizes (N, 3N, 10N), each row beside its baseline
// from the same run: stacks, the provider processes, fleets, workspaces and the 429 path. Prints
// every row against its goal and writes bench/results/scale.json, scale.md and one SVG chart per
// family (bench/charts/); with --readme, also the table in bench/README.md. Not part of CI.
//   node dist/bench/scale.js [--only stacks,fleets,workspaces,limits] [--stacks 100,300,1000]
//     [--fleets 20,60,200] [--workspaces 10000,30000,100000] [--limit-creates 1000] [--readme]
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { charts, json, markdown, printSeries } from "./scale-report";
import { elapsedMinutes, log, type Series } from "./scale-series";
import { runFleets } from "./scale-fleet";
import { runLimits } from "./scale-limits";
import { runStacks } from "./scale-stacks";
import { runWorkspaces } from "./scale-workspace";

const ROOT = join(__dirname, "..", "..");
const BENCH = join(ROOT, "bench");

function flag(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}
const sizes = (name: string, fallback: number[]) => {
  const v = flag(name)?.split(",").map(Number) ?? fallback;
  if (!v.length || !v.every((n) => Number.isInteger(n) && n > 0)) throw new Error(`${name} takes sizes such as 10,30,100`);
  return v;
};

async function main(): Promise<void> {
  const only = flag("--only")?.split(",") ?? ["stacks", "fleets", "workspaces", "limits"];
  const settings = {
    stacks: sizes("--stacks", [100, 300, 1_000]),
    fleets: sizes("--fleets", [20, 60, 200]),
    workspaces: sizes("--workspaces", [10_000, 30_000, 100_000]),
    limitCreates: Number(flag("--limit-creates") ?? 1_000),
    only,
    started: new Date().toISOString(),
    loadAverageAtStart: loadavg()[1],
  };
  const all: Series[] = [];
  if (only.includes("stacks")) all.push(...(await runStacks(settings.stacks)));
  if (only.includes("fleets")) all.push(...(await runFleets(settings.fleets)));
  if (only.includes("workspaces")) all.push(...(await runWorkspaces(settings.workspaces, Math.min(1_000, settings.workspaces[0]))).series);
  if (only.includes("limits")) {
    const n = settings.limitCreates;
    all.push(...(await runLimits([Math.round(n / 10), Math.round((3 * n) / 10), n])));
  }
  log(`done in ${elapsedMinutes().toFixed(1)} min`);
  printSeries(all);

  const results = join(BENCH, "results");
  mkdirSync(results, { recursive: true });
  const table = markdown(all);
  writeFileSync(join(results, "scale.json"), json(all, { ...settings, minutes: elapsedMinutes() }));
  writeFileSync(join(results, "scale.md"), `${table}\n`);
  const drawn = await charts(all, join(BENCH, "charts"));
  log(`wrote ${join(results, "scale.json")}, ${join(results, "scale.md")} and ${drawn.length} charts`);
  if (process.argv.includes("--readme")) {
    const readme = join(BENCH, "README.md");
    const text = readFileSync(readme, "utf8");
    const begin = "<!-- bench-scale:begin -->";
    const end = "<!-- bench-scale:end -->";
    const at = text.indexOf(begin);
    const stop = text.indexOf(end);
    if (at < 0 || stop < at) throw new Error(`bench/README.md has no ${begin} ... ${end} section to fill`);
    const minutes = elapsedMinutes();
    const ran = `Run of ${settings.started.slice(0, 10)}: ${only.join(", ")}; stacks ${settings.stacks.join("/")}, fleets ${settings.fleets.join("/")}, workspaces ${settings.workspaces.map((n) => n.toLocaleString("en-US")).join("/")}, limit ${settings.limitCreates.toLocaleString("en-US")} creates; ${minutes.toFixed(0)} minutes; load average ${settings.loadAverageAtStart.toFixed(1)} at the start (two cores).`;
    const images = drawn.map((f) => `![${f.replace(/^.*scale-|\.svg$/g, "")}](charts/${f.replace(/^.*\//, "")})`).join("\n");
    writeFileSync(readme, `${text.slice(0, at + begin.length)}\n${ran}\n\n${table}\n${images}\n${text.slice(stop)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
