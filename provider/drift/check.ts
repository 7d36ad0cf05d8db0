// One stack's check: a refresh preview that does not run the program (`pulumi refresh
// --preview-only --run-program=false`), so state is never written and a stack of any language is
// checked with Node.js and the CLI alone. The engine's events come through `--event-log` (a file
// of JSON lines, read once the CLI exits). Errors become the stack's failure, never the run's.
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classify } from "./failures";
import { FindingCollector, withoutIgnored } from "./findings";
import { ignoreChangesOf } from "./ignores";
import type { StackReport } from "./types";
import { ManagedCollector } from "./unmanaged";
import { openWorkspace, publicBackend, runPulumi, type Runner, type Target } from "./workspace";

export interface CheckOptions {
  /** Resource reads at once within the stack (the CLI's --parallel). */
  parallel?: number;
  /** Record the platform objects the stack manages (--unmanaged). */
  managed?: boolean;
}

export function baseReport(t: Target): Omit<StackReport, "status" | "resourcesChecked" | "findings" | "durationMs"> {
  return { name: t.name, project: t.project, stack: t.stack, ...(t.backend ? { backend: publicBackend(t.backend) } : {}) };
}

/** The engine events of an event log; a line cut short by a crash is skipped. */
export function readEvents(file: string): EngineEvent[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: EngineEvent[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as EngineEvent);
    } catch {
      // incomplete last line
    }
  }
  return out;
}

export async function checkStack(runner: Runner, t: Target, opts: CheckOptions = {}): Promise<StackReport> {
  const started = Date.now();
  const collector = new FindingCollector();
  const managed = new ManagedCollector();
  let failure: unknown;
  let ignore = new Map<string, string[]>();
  const ws = openWorkspace(runner, t);
  const logDir = mkdtempSync(join(tmpdir(), "cloudplatform-drift-events-"));
  try {
    const log = join(logDir, "events.jsonl");
    const args = ["refresh", "--preview-only", "--run-program=false", "--color", "never", "--stack", t.name, "--event-log", log];
    if (opts.parallel) args.push("--parallel", String(opts.parallel));
    try {
      await runPulumi(runner, args, { cwd: ws.dir, env: ws.env });
    } finally {
      for (const e of readEvents(log)) {
        collector.onEvent(e);
        if (opts.managed) managed.onEvent(e);
      }
    }
    if (collector.findings.some((f) => f.type === "changed")) {
      // Each resource's ignoreChanges, from the state, on the backend the workspace uses.
      const backend = ws.env.PULUMI_BACKEND_URL ?? process.env.PULUMI_BACKEND_URL;
      const exportStack = async () => (await runPulumi(runner, ["stack", "export", "--stack", t.name], { cwd: ws.dir, env: ws.env })).stdout;
      ignore = await ignoreChangesOf(exportStack, { backend, project: t.project, stack: t.stack });
    }
  } catch (err) {
    failure = err;
  } finally {
    ws.dispose();
    rmSync(logDir, { recursive: true, force: true });
  }
  const findings = withoutIgnored(collector.findings, ignore);
  const unreadable = findings.filter((f) => f.type === "unreadable");
  const drifted = findings.some((f) => f.type !== "unreadable");
  let error: StackReport["error"];
  if (failure !== undefined || unreadable.length) {
    const c = classify(failure ?? new Error(unreadable.map((f) => f.message ?? "").join("; ")));
    // A resource the provider could not read is the stack's failure, kind `api` when the API refused it.
    error = unreadable.length && c.kind !== "api" && c.kind !== "plugin" ? { kind: "unreadable", message: unreadable.map((f) => `${f.urn}: ${f.message ?? "read failed"}`).join("; ") } : c;
  }
  return {
    ...baseReport(t),
    status: error ? "failed" : drifted ? "drifted" : "clean",
    ...(error ? { error } : {}),
    resourcesChecked: collector.checked,
    findings,
    durationMs: Date.now() - started,
    ...(opts.managed && !error ? { managed: [...managed.keys].sort() } : {}),
  };
}
