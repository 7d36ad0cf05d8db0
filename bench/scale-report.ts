// `make bench-scale`'s output: the rows printed against their goals, the JSON, the Markdown table,
// and one SVG chart per family (cost against size, ours beside the baseline) drawn by Vega-Lite.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Family, LINEAR, ratioAt, type Series, slope } from "./scale-series";

const TITLES: Record<Family, string> = {
  stacks: "Stacks: pulumi up, preview, refresh and destroy",
  providers: "Provider processes during the largest up",
  fleets: "Fleets: cloudplatform-drift over many stacks",
  workspaces: "Workspaces: an emulator holding many objects",
  limits: "The 429 path: creates under the platform's limit",
};

const num = (v: number | undefined, unit = "") => {
  if (v === undefined || !Number.isFinite(v)) return "-";
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit ? ` ${unit}` : ""}`;
};

export function verdict(s: Series): string {
  if (!s.check) return "-";
  if (s.check(s.points)) return "ok";
  const ours = slope(s.points) ?? Infinity;
  const base = slope(s.points, "baseline");
  if (s.goalMet?.(s.points) && base !== undefined && base > LINEAR && ours <= base * 1.1) {
    return `missed by Pulumi: the ratio holds, and the ${s.baselineName ?? "baseline"} grows ${num(base)}x too`;
  }
  return "MISSED";
}

/** One line per point, grouped by series. */
export function printSeries(all: Series[]): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`\n${pad("#", 5)}${pad("measure", 72)}${pad("size", 8)}${pad("ours", 14)}${pad("baseline", 14)}${pad("ratio", 8)}goal`);
  for (const s of all) {
    s.points.forEach((p, i) => {
      const r = ratioAt(p);
      const last = i === s.points.length - 1;
      console.log(`${pad(s.id, 5)}${pad(i === 0 ? `${s.what} (${s.unit})` : "", 72)}${pad(String(p.size), 8)}${pad(num(p.value), 14)}${pad(num(p.baseline), 14)}${pad(r === undefined ? "-" : `${r.toFixed(2)}x`, 8)}${last ? `${s.goal}; slope ${num(slope(s.points))}x: ${verdict(s)}` : ""}`);
    });
  }
}

/** The Markdown table: one row per series, each size's value (and its baseline's), the slope and the verdict. */
export function markdown(all: Series[]): string {
  const out: string[] = [];
  for (const family of Object.keys(TITLES) as Family[]) {
    const rows = all.filter((s) => s.family === family);
    if (!rows.length) continue;
    out.push(`**${TITLES[family]}** ([chart](charts/scale-${family}.svg))`, "");
    out.push("| # | Measure | Baseline | Sizes: ours (baseline) | Slope N→10N, ours (baseline) | Goal | Result |", "|---|---|---|---|---|---|---|");
    for (const s of rows) {
      const points = s.points.map((p) => `${p.size.toLocaleString("en-US")}: ${num(p.value)}${p.baseline !== undefined ? ` (${num(p.baseline)})` : ""}`).join("; ");
      const slopes = `${num(slope(s.points))}x${s.points.some((p) => p.baseline !== undefined) ? ` (${num(slope(s.points, "baseline"))}x)` : ""}`;
      out.push(`| ${s.id} | ${s.what}, ${s.unit} | ${s.baselineName ?? "-"} | ${points} | ${slopes} | ${s.goal}; ≤ ${LINEAR}x | **${verdict(s)}** |`);
    }
    out.push("");
  }
  return out.join("\n");
}

// Vega and Vega-Lite are ES modules only; TypeScript compiles `import()` to `require()` for
// CommonJS, which cannot load them, so the import is made at run time.
const importEsm = new Function("m", "return import(m)") as (m: string) => Promise<any>;

const LEGEND = { orient: "bottom", labelLimit: 400, symbolType: "stroke", symbolStrokeWidth: 2 };

/** One SVG per family: a panel per measure, cost against size (log axis), ours beside the baseline. */
export async function charts(all: Series[], dir: string): Promise<string[]> {
  const vega = await importEsm("vega");
  const vl = await importEsm("vega-lite");
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const family of Object.keys(TITLES) as Family[]) {
    // Costs only: the API-call counts are in the table.
    const rows = all.filter((s) => s.family === family && s.unit !== "calls");
    if (!rows.length) continue;
    const values = rows.flatMap((s) => s.points.flatMap((p) => [
      { measure: `${s.id} ${s.what} (${s.unit})`, size: p.size, value: p.value, who: "ours" },
      ...(p.baseline !== undefined ? [{ measure: `${s.id} ${s.what} (${s.unit})`, size: p.size, value: p.baseline, who: s.baselineName ? `baseline: ${s.baselineName}` : "baseline" }] : []),
    ])).filter((v) => Number.isFinite(v.value));
    const spec = {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: TITLES[family],
      data: { values },
      facet: { field: "measure", type: "nominal", title: null, header: { labelLimit: 520, labelFontSize: 11 } },
      columns: 2,
      spec: {
        width: 300, height: 170,
        mark: { type: "line", point: true },
        encoding: {
          x: { field: "size", type: "quantitative", scale: { type: "log" }, title: "size" },
          y: { field: "value", type: "quantitative", title: null, scale: { zero: true } },
          color: { field: "who", type: "nominal", title: null, legend: LEGEND },
          // The same legend as color's, so Vega-Lite merges the two: one entry per line, drawn as it is.
          strokeDash: { field: "who", type: "nominal", title: null, legend: LEGEND },
        },
      },
      resolve: { scale: { y: "independent" } },
      config: { font: "sans-serif", background: "white" },
    };
    const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
    const file = join(dir, `scale-${family}.svg`);
    writeFileSync(file, await view.toSVG());
    view.finalize();
    written.push(file);
  }
  return written;
}

/** The JSON beside the table: every point of every series, and the run's settings. */
export function json(all: Series[], settings: Record<string, unknown>): string {
  return `${JSON.stringify({
    settings,
    series: all.map(({ check: _check, ...s }) => ({ ...s, slope: slope(s.points), baselineSlope: slope(s.points, "baseline"), result: verdict({ ...s, check: _check }) })),
  }, null, 2)}\n`;
}
