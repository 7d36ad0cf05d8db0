// The report: built from the stacks' results, merged from shards, and its exit code.
import { assignIds } from "./baseline";
import { EXIT, SCHEMA_VERSION, type Report, type StackReport, type Summary, type Unmanaged } from "./types";

export function summarize(stacks: StackReport[], unmanaged?: Unmanaged): Summary {
  const drifted = (s: StackReport) => s.findings.filter((f) => f.type !== "unreadable").length;
  return {
    stacksChecked: stacks.length,
    stacksDrifted: stacks.filter((s) => drifted(s) > 0).length,
    stacksFailed: stacks.filter((s) => s.status === "failed").length,
    resourcesChecked: stacks.reduce((n, s) => n + s.resourcesChecked, 0),
    resourcesDrifted: stacks.reduce((n, s) => n + drifted(s), 0),
    resourcesUnreadable: stacks.reduce((n, s) => n + s.findings.filter((f) => f.type === "unreadable").length, 0),
    ...(unmanaged ? { objectsUnmanaged: unmanaged.objects.length } : {}),
  };
}

const byName = (a: StackReport, b: StackReport) => (a.name === b.name ? ((a.backend ?? "") < (b.backend ?? "") ? -1 : 1) : a.name < b.name ? -1 : 1);

export function buildReport(stacks: StackReport[], extra: Partial<Pick<Report, "shard" | "generatedAt" | "unmanaged">> = {}): Report {
  const sorted = [...stacks].sort(byName);
  return assignIds({
    schemaVersion: SCHEMA_VERSION,
    tool: "cloudplatform-drift",
    generatedAt: extra.generatedAt ?? new Date().toISOString(),
    ...(extra.shard ? { shard: extra.shard } : {}),
    summary: summarize(sorted, extra.unmanaged),
    stacks: sorted,
    ...(extra.unmanaged ? { unmanaged: extra.unmanaged } : {}),
  });
}

/** Recounts the summary after the unmanaged objects were added or changed. */
export function resummarize(r: Report): Report {
  r.summary = summarize(r.stacks, r.unmanaged);
  return r;
}

/**
 * 1 when a stack could not be checked or the workspace could not be listed (it wins), 7 when drift
 * or an unmanaged object was found, else 0.
 */
export function exitCode(r: Report): number {
  if (r.summary.stacksFailed > 0 || r.unmanaged?.error) return EXIT.failed;
  return r.summary.stacksDrifted > 0 || (r.summary.objectsUnmanaged ?? 0) > 0 ? EXIT.drift : EXIT.clean;
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

/** `org/project/stack` of a stack entry, also for a report that named a stack by its bare name. */
function fullName(s: StackReport): string {
  if (!s.project || !s.stack || s.name.split("/").length === 3) return s.name;
  return `organization/${s.project}/${s.stack}`;
}

/**
 * The shards of a run missing from `reports`: every report of a sharded run says `I/N`, so a set
 * without one of 1..N is incomplete. Reports of different N are an error: not one run.
 */
export function missingShards(reports: { shard?: string }[]): string[] {
  const shards = reports.map((r) => r.shard).filter((x): x is string => !!x);
  if (!shards.length) return [];
  const counts = new Set(shards.map((x) => Number(x.split("/")[1])));
  if (counts.size > 1) throw new Error(`the reports are shards of different runs (${[...new Set(shards)].sort().join(", ")}): merge the shards of one run`);
  const n = [...counts][0];
  const have = new Set(shards.map((x) => Number(x.split("/")[0])));
  return Array.from({ length: n }, (_, i) => i + 1).filter((i) => !have.has(i)).map((i) => `${i}/${n}`);
}

/**
 * One report from the shards': every stack once, named `org/project/stack` (a stack in two shards
 * keeps its later check), and a failed entry (kind `missing`) for each shard whose report is not
 * there, so the merged report says which and exits 1.
 */
export function mergeReports(reports: Report[]): Report {
  const stacks = new Map<string, StackReport>();
  for (const r of reports) {
    for (const s of r.stacks) {
      const name = fullName(s);
      stacks.set(`${s.backend ?? ""}|${name}`, { ...s, name });
    }
  }
  for (const shard of missingShards(reports)) {
    stacks.set(`|shard ${shard}`, {
      name: `shard ${shard}`, project: "", stack: "", status: "failed",
      error: { kind: "missing", message: `no report of shard ${shard}: its job did not finish, or its report was not given to merge` },
      resourcesChecked: 0, findings: [], durationMs: 0,
    });
  }
  const newest = reports.map((r) => r.generatedAt).sort().pop();
  return buildReport([...stacks.values()], { generatedAt: newest });
}
