// The report: built from the stacks' results, merged from shards, and its exit code.
import { EXIT, SCHEMA_VERSION, type Report, type StackReport, type Summary } from "./types";

export function summarize(stacks: StackReport[]): Summary {
  const drifted = (s: StackReport) => s.findings.filter((f) => f.type !== "unreadable").length;
  return {
    stacksChecked: stacks.length,
    stacksDrifted: stacks.filter((s) => drifted(s) > 0).length,
    stacksFailed: stacks.filter((s) => s.status === "failed").length,
    resourcesChecked: stacks.reduce((n, s) => n + s.resourcesChecked, 0),
    resourcesDrifted: stacks.reduce((n, s) => n + drifted(s), 0),
    resourcesUnreadable: stacks.reduce((n, s) => n + s.findings.filter((f) => f.type === "unreadable").length, 0),
  };
}

const byName = (a: StackReport, b: StackReport) => (a.name === b.name ? ((a.backend ?? "") < (b.backend ?? "") ? -1 : 1) : a.name < b.name ? -1 : 1);

export function buildReport(stacks: StackReport[], extra: Partial<Pick<Report, "shard" | "generatedAt">> = {}): Report {
  const sorted = [...stacks].sort(byName);
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: "cloudplatform-drift",
    generatedAt: extra.generatedAt ?? new Date().toISOString(),
    ...(extra.shard ? { shard: extra.shard } : {}),
    summary: summarize(sorted),
    stacks: sorted,
  };
}

/** 1 when a stack could not be checked (it wins), 7 when drift was found, else 0. */
export function exitCode(r: Report): number {
  if (r.summary.stacksFailed > 0) return EXIT.failed;
  return r.summary.stacksDrifted > 0 ? EXIT.drift : EXIT.clean;
}

/** Reads a report written by this command, refusing another tool's file or a newer schema. */
export function parseReport(text: string, source: string): Report {
  let r: Report;
  try {
    r = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON (${(err as Error).message})`);
  }
  if (r?.tool !== "cloudplatform-drift" || !Array.isArray(r.stacks)) throw new Error(`${source}: not a cloudplatform-drift report`);
  if (typeof r.schemaVersion !== "number" || r.schemaVersion > SCHEMA_VERSION) {
    throw new Error(`${source}: schemaVersion ${r.schemaVersion} is newer than this command's ${SCHEMA_VERSION}; upgrade pulumi-cloudplatform`);
  }
  return r;
}

/** One report from the shards': every stack once (a stack in two shards keeps its later check). */
export function mergeReports(reports: Report[]): Report {
  const stacks = new Map<string, StackReport>();
  for (const r of reports) for (const s of r.stacks) stacks.set(`${s.backend ?? ""}|${s.name}`, s);
  const newest = reports.map((r) => r.generatedAt).sort().pop();
  return buildReport([...stacks.values()], { generatedAt: newest });
}
