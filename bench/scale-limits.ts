// `make bench-scale`, the 429 path: `pulumi up` of N Projects (dynamic SDK) against an emulator
// limited to 300 requests a minute (burst 5). The create window (first to last create answered)
// beside the least the limit allows, (N - burst) / 300 minutes; no create may fail and none may be
// made twice (the workspace holds exactly N projects of the run's tag afterwards).
import { join } from "node:path";
import { startEmulator } from "../emulator";
import { openStack, ROOT, type StackHandle } from "../scripts/pulumi-env";
import { installedApp } from "./engine";
import { log, type Series } from "./scale-series";

const PER_MINUTE = 300;
const CREATE = "POST /v1/workspaces/:workspaceId/projects";

export async function runLimits(sizes: number[]): Promise<Series[]> {
  const emu = await startEmulator({ settings: { speed: 0 } });
  const app = installedApp(join(ROOT, "bench", "programs", "engine"));
  const hits: { t: number; route: string; status: number }[] = [];
  const count = emu.emu.count.bind(emu.emu);
  emu.emu.count = (route: string, status: number) => {
    hits.push({ t: Date.now(), route, status });
    count(route, status);
  };
  const stacks: StackHandle[] = [];
  const points: { size: number; window: number; minimum: number; throttled: number; errors: number; made: number }[] = [];
  try {
    for (const n of sizes) {
      const tag = `lim${process.pid % 10_000}n${n}`;
      const s = await openStack({
        programDir: app.dir, stackName: `limits-${tag}`,
        env: { CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey },
        config: { mode: "projects", count: String(n), tag },
      });
      stacks.push(s);
      // The limit starts full for each size: a window of its own.
      emu.emu.rateLimit.set({ perMinute: PER_MINUTE });
      const burst = emu.emu.rateLimit.get()!.burst;
      // The burst goes at once; the rest at the limit's rate (none at all for a size within the burst).
      const minimum = (Math.max(0, n - burst) / PER_MINUTE) * 60;
      log(`limits: up of ${n} Projects under ${PER_MINUTE}/min (at least ${minimum.toFixed(0)} s)`);
      const from = hits.length;
      const failed = await s.stack.up().then(() => undefined, (e: Error) => e);
      emu.emu.rateLimit.set(undefined);
      const mine = hits.slice(from);
      const created = mine.filter((h) => h.route === CREATE && h.status < 300);
      const made = emu.emu.store.table<{ id: string; name: string }>("projects").where((p) => p.name.startsWith(`${tag}-`)).length;
      points.push({
        size: n, made,
        window: created.length > 1 ? (created[created.length - 1].t - created[0].t) / 1000 : NaN,
        minimum,
        throttled: mine.filter((h) => h.status === 429).length,
        errors: mine.filter((h) => h.status >= 400 && h.status !== 429).length + (failed ? 1 : 0),
      });
      log(`limits: ${n}: ${points[points.length - 1].throttled} answers of 429, ${points[points.length - 1].errors} errors, ${made} projects made`);
      // No destroy: the emulator is this family's own and goes at the end, with each stack's state
      // (a destroy of the 1,400 Projects would take about 1.5 minutes and measure nothing).
    }
  } finally {
    for (const s of stacks) await s.dispose().catch(() => undefined);
    await emu.close();
    app.dispose();
  }
  const sane = (p: (typeof points)[number]) => p.errors === 0 && p.made === p.size;
  return [
    {
      family: "limits", id: "L", what: `create window of N Projects under ${PER_MINUTE}/min (burst 5): ${points.map((p) => `${p.size}: ${p.throttled} 429s, ${p.errors} errors, ${p.made} made`).join("; ")}`,
      unit: "s", baselineName: "the least the limit allows", points: points.map((p) => ({ size: p.size, value: p.window, baseline: p.minimum })),
      // The least grows with N as the window does: the ratio to it is the linearity.
      goal: "<= 1.1x the least at the largest size (the least grows with N: its slope is not judged); no failed create and none made twice at any",
      check: (pts) => pts[pts.length - 1].value / pts[pts.length - 1].baseline! <= 1.1 && points.every(sane),
    },
  ];
}
