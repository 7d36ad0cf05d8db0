// The harness's rounds: a plan drawn by fast-check from a seed, its edits made through the API on
// every stack, one cloudplatform-drift run over the whole fleet (--unmanaged, JSON) as a user
// runs it, the findings scored against the truth the edits made, then everything put back (through
// the API where the harness knows the old value, `up --refresh` on the stacks that lost objects).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import fc from "fast-check";
import { pathText } from "../../../provider/drift/findings";
import type { Report } from "../../../provider/drift/types";
import type { TestEmulator } from "../../support/emulator";
import { drift, fleetEnv } from "../fleet";
import { CATALOG, needsUp, roundPlan, type Edit, type Truth } from "./edits";
import { upStack, type HarnessStack } from "./fleet";

export interface Score {
  edits: number;
  tp: number;
  fp: number;
  fn: number;
}

export interface RoundResult {
  seed: number;
  edits: Edit[];
  fp: Truth[];
  fn: Truth[];
  tp: Truth[];
  /** Secret values found in the report's text (must be none). */
  leaked: string[];
  code: number;
  stderr: string;
}

/** A finding's keys, as the edits write their truth. */
export function findingKeys(report: Report): Truth[] {
  const keys: Truth[] = [];
  for (const s of report.stacks) {
    for (const f of s.findings) {
      const res = `${f.resourceType.split(":").pop()} ${f.urn.split("::").pop()}`;
      if (f.type !== "changed") keys.push(`${s.name}|${res}|${f.type}`);
      else if (!f.changelog?.length) keys.push(`${s.name}|${res}|changed (unnamed: ${f.reason})`);
      else for (const c of f.changelog) keys.push(`${s.name}|${res}|${c.type} ${pathText(c.path, f.resourceType)}`);
    }
    if (s.status === "failed") keys.push(`${s.name}|stack|failed: ${s.error?.message}`);
  }
  for (const o of report.unmanaged?.objects ?? []) keys.push(`unmanaged|${o.key}`);
  if (report.unmanaged?.error) keys.push(`unmanaged|error: ${report.unmanaged.error}`);
  return keys;
}

/** The type a finding is counted under: `Service`, `unmanaged EnvVar`... */
export function typeOf(key: Truth): string {
  const [a, b] = key.split("|");
  if (a === "unmanaged") return `unmanaged ${b.split(":")[0]}`;
  return b.split(" ")[0];
}

/** The plan a seed draws (the same on every run: replay one with DRIFT_HARNESS_SEEDS). */
export function planOf(seed: number, stacks: number) {
  return fc.sample(roundPlan(stacks), { seed, numRuns: 1 })[0];
}

/** One round: edits, one check of the whole fleet, the score, everything restored. */
export async function round(emu: TestEmulator, dir: string, fleet: HarnessStack[], seed: number): Promise<RoundResult> {
  const api = emu.client();
  const plan = planOf(seed, fleet.length);
  const edits: Edit[][] = fleet.map(() => []);
  const errors: unknown[] = [];
  let result: RoundResult | undefined;
  try {
    await Promise.all(fleet.map(async (s, i) => {
      for (const k of plan[i].kinds) edits[i].push({ ...(await CATALOG[k].apply({ emu, api, s }, plan[i].n + k)), stack: s.stack });
    }));
    result = await check(emu, dir, fleet, seed, edits.flat());
  } catch (err) {
    errors.push(err);
  }
  // Restore, whatever happened: the API first, then `up --refresh` where objects were deleted
  // (their ids change, so the state is read again).
  await Promise.all(fleet.map(async (_, i) => {
    for (const e of edits[i]) await e.revert?.().catch((err: unknown) => errors.push(err));
  }));
  for (const [i, s] of fleet.entries()) if (plan[i].kinds.some((k) => needsUp(CATALOG[k]))) await upStack(emu, dir, s);
  if (errors.length || !result) throw new Error(`seed ${seed}: ${errors.map(String).join("; ")}`);
  return result;
}

/** One cloudplatform-drift run over the whole fleet, as a user runs it, scored against the edits' truth. */
async function check(emu: TestEmulator, dir: string, fleet: HarnessStack[], seed: number, all: Edit[]): Promise<RoundResult> {
  const r = await drift(["--all", "--unmanaged", "--parallel", "2", "--format", "json"], fleetEnv(emu, dir));
  let found: Truth[] = [];
  try {
    found = findingKeys(JSON.parse(r.stdout) as Report);
  } catch {
    found = [`report|unreadable: exit ${r.code}: ${r.stderr.slice(0, 500)}`];
  }
  const secrets = [...fleet.flatMap((s) => Object.values(s.secrets)), ...all.flatMap((e) => e.secrets), emu.apiKey];
  const leaked = secrets.filter((x) => r.stdout.includes(x) || r.stderr.includes(x));
  const truth = new Set(all.flatMap((e) => e.truth));
  const got = new Set(found);
  return {
    seed, edits: all, code: r.code, stderr: r.stderr, leaked,
    tp: [...truth].filter((x) => got.has(x)), fn: [...truth].filter((x) => !got.has(x)), fp: [...got].filter((x) => !truth.has(x)),
  };
}

/** Scores rounds per resource type and overall; the table the tests print and write. */
export function score(rounds: RoundResult[]): { byType: Record<string, Score>; byKind: Record<string, number>; overall: Score } {
  const byType: Record<string, Score> = {};
  const byKind: Record<string, number> = {};
  const row = (type: string) => (byType[type] ??= { edits: 0, tp: 0, fp: 0, fn: 0 });
  for (const r of rounds) {
    for (const e of r.edits) {
      row(e.type).edits++;
      byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
    }
    for (const x of r.tp) row(typeOf(x)).tp++;
    for (const x of r.fp) row(typeOf(x)).fp++;
    for (const x of r.fn) row(typeOf(x)).fn++;
  }
  const overall = Object.values(byType).reduce((a, s) => ({ edits: a.edits + s.edits, tp: a.tp + s.tp, fp: a.fp + s.fp, fn: a.fn + s.fn }), { edits: 0, tp: 0, fp: 0, fn: 0 });
  return { byType, byKind, overall };
}

const ratio = (a: number, b: number) => (b === 0 ? "1.000" : (a / b).toFixed(3));
export const precision = (s: Score) => (s.tp + s.fp === 0 ? 1 : s.tp / (s.tp + s.fp));
export const recall = (s: Score) => (s.tp + s.fn === 0 ? 1 : s.tp / (s.tp + s.fn));

/** The table: edits, TP, FP, FN, precision and recall per type, then overall. */
export function table(t: ReturnType<typeof score>, seeds: number[]): string {
  const rows = [...Object.entries(t.byType).sort(([a], [b]) => a.localeCompare(b)), ["overall", t.overall] as const];
  const line = (c: string[]) => `| ${c.join(" | ")} |`;
  return [
    line(["type", "edits", "TP", "FP", "FN", "precision", "recall"]),
    line(["---", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ...rows.map(([type, s]) => line([type, `${s.edits}`, `${s.tp}`, `${s.fp}`, `${s.fn}`, ratio(s.tp, s.tp + s.fp), ratio(s.tp, s.tp + s.fn)])),
    "",
    `seeds: ${seeds.join(",")} (replay: DRIFT_HARNESS_SEEDS=${seeds.join(",")})`,
  ].join("\n");
}

/** The seeds of a run: DRIFT_HARNESS_SEEDS (comma-separated) when set, else `count` from `base`. */
export function seedsOf(base: number, count: number): number[] {
  const env = process.env.DRIFT_HARNESS_SEEDS;
  if (env) return env.split(",").map((x) => Number(x.trim())).filter((x) => Number.isInteger(x));
  return Array.from({ length: count }, (_, i) => base + i);
}

export function writeResult(file: string, data: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}
