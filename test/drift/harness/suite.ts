// The harness as a Jest suite: one fleet (a dynamic, a native and a Python stack, each holding every
// resource type) built in parallel, then `rounds` rounds from consecutive seeds (or the seeds in
// DRIFT_HARNESS_SEEDS), the table printed and written to <the test's temp dir>/harness.json, and
// precision = recall = 1.0 asserted. Everything is destroyed after; nothing is left on the emulator.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../../scripts/pulumi-env";
import type { Report } from "../../../provider/drift/types";
import { emulator, type TestEmulator } from "../../support/emulator";
import { drift, fleetEnv } from "../fleet";
import { CATALOG } from "./edits";
import { buildStack, removeStack, type HarnessStack } from "./fleet";
import { findingKeys, round, score, seedsOf, table, writeResult, type RoundResult } from "./round";

export function harnessSuite(opts: { label: string; base: number; rounds: number; minEdits: number; everyKind?: boolean }): void {
  let emu: TestEmulator;
  let dir: string;
  let fleet: HarnessStack[] = [];
  beforeAll(async () => {
    emu = await emulator({ settings: { speed: 0 } });
    mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
    dir = mkdtempSync(join(ROOT, ".pulumi-state", `${opts.label}-`));
    const tag = `${process.pid}`;
    // Stack names of this process: each stack's config is a file in the program's folder, which
    // the two harness files (run side by side by Jest's workers) would otherwise overwrite.
    const built = await Promise.allSettled([
      buildStack(emu, dir, "dynamic", `dyn-${tag}`, tag), buildStack(emu, dir, "native", `nat-${tag}`, tag), buildStack(emu, dir, "python", `py-${tag}`, tag),
    ]);
    fleet = built.flatMap((b) => (b.status === "fulfilled" ? [b.value] : []));
    const failed = built.find((b): b is PromiseRejectedResult => b.status === "rejected");
    if (failed) throw failed.reason;
  }, 900_000);
  afterAll(async () => {
    const left = fleet;
    fleet = [];
    await Promise.all(left.map((s) => removeStack(emu, dir, s)));
    try {
      expect(await emu.leftovers()).toEqual({});
    } finally {
      await emu?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 900_000);

  test("right after up: the fleet is clean, nothing unmanaged", async () => {
    const r = await drift(["--all", "--unmanaged", "--format", "json"], fleetEnv(emu, dir));
    expect([r.code, findingKeys(JSON.parse(r.stdout) as Report), r.stderr]).toEqual([0, [], ""]);
  });

  test(`random out-of-band edits: precision and recall 1.0 (${opts.rounds} rounds, at least ${opts.minEdits} edits)`, async () => {
    const seeds = seedsOf(opts.base, opts.rounds);
    const rounds: RoundResult[] = [];
    const t0 = Date.now();
    for (const seed of seeds) {
      const r = await round(emu, dir, fleet, seed);
      rounds.push(r);
      if (r.fp.length || r.fn.length || r.leaked.length || process.env.DRIFT_HARNESS_VERBOSE) {
        process.stderr.write(`drift harness: seed ${seed}: edits ${r.edits.map((e) => `${e.stack}:${e.kind}`).join("; ")}\n  FP ${JSON.stringify(r.fp)}\n  FN ${JSON.stringify(r.fn)}\n  leaked ${r.leaked.length}\n`);
      }
    }
    const t = score(rounds);
    const text = table(t, seeds);
    const file = join(dir, "harness.json");
    writeResult(file, { seeds, wallSeconds: (Date.now() - t0) / 1000, ...t, rounds: rounds.map((r) => ({ seed: r.seed, edits: r.edits.map((e) => e.kind), fp: r.fp, fn: r.fn })) });
    // The test's temp dir goes with the fleet: a copy of the table beside it.
    writeResult(join(ROOT, ".pulumi-state", `${opts.label}.json`), { seeds, wallSeconds: (Date.now() - t0) / 1000, ...t });
    process.stdout.write(`drift harness (${opts.label}): ${t.overall.edits} edits in ${rounds.length} rounds, ${((Date.now() - t0) / 1000).toFixed(0)}s\n${text}\n`);
    const misses = rounds.filter((r) => r.fp.length || r.fn.length).map((r) => ({ seed: r.seed, fp: r.fp, fn: r.fn }));
    expect({ misses, seeds }).toEqual({ misses: [], seeds });
    expect(rounds.flatMap((r) => r.leaked.map(() => `seed ${r.seed}: a secret value in the report`))).toEqual([]);
    // The catalog says which kinds must leave no finding (the platform's, ignored, undeclared); the rest must leave one.
    expect([...new Set(rounds.flatMap((r) => r.edits).filter((e) => !!CATALOG.find((k) => k.kind === e.kind)?.silent !== (e.truth.length === 0)).map((e) => e.kind))]).toEqual([]);
    expect(rounds.filter((r) => r.code !== (r.edits.some((e) => e.truth.length) ? 7 : 0)).map((r) => [r.seed, r.code, r.stderr])).toEqual([]);
    if (!process.env.DRIFT_HARNESS_SEEDS) {
      expect(t.overall.edits).toBeGreaterThanOrEqual(opts.minEdits);
      // Every kind of the catalog was drawn at least once.
      if (opts.everyKind) expect(CATALOG.map((k) => k.kind).filter((k) => !t.byKind[k])).toEqual([]);
    }
  }, 1_800_000);

  test("after the rounds: everything restored, the fleet is clean", async () => {
    const r = await drift(["--all", "--unmanaged", "--format", "json"], fleetEnv(emu, dir));
    expect([r.code, findingKeys(JSON.parse(r.stdout) as Report)]).toEqual([0, []]);
  });
}
