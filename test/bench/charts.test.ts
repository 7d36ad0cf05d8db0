// bench-scale's charts (bench/scale-report.ts): one SVG per family, ours beside the baseline, drawn
// by Vega-Lite without a warning (a conflicting legend once printed one on every run). Vega is an ES
// module, which Jest's module registry cannot import: the built code draws in a process of its own.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const ROOT = resolve(__dirname, "..", "..");

test("a family's chart is one SVG with a line each for ours and the baseline, one legend, and no warning", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-charts-"));
  try {
    const series = [{
      family: "limits", id: "L", what: "create window", unit: "s", baselineName: "the least the limit allows",
      points: [{ size: 100, value: 19.4, baseline: 19 }, { size: 300, value: 59.4, baseline: 59 }, { size: 1000, value: 199, baseline: 199 }],
    }];
    const draw = `require(${JSON.stringify(join(ROOT, "dist", "bench", "scale-report.js"))}).charts(${JSON.stringify(series)}, ${JSON.stringify(dir)})
      .then((files) => require("fs").writeFileSync(${JSON.stringify(join(dir, "files.json"))}, JSON.stringify(files)))`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["-e", draw]);
    expect(stdout + stderr).toBe("");
    expect(JSON.parse(readFileSync(join(dir, "files.json"), "utf8"))).toEqual([join(dir, "scale-limits.svg")]);
    const svg = readFileSync(join(dir, "scale-limits.svg"), "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    for (const label of ["ours", "baseline: the least the limit allows"]) expect([label, svg.split(`>${label}<`).length - 1]).toEqual([label, 1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
