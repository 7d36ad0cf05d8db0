// One stack's check: a refresh preview that does not run the program (`pulumi refresh
// --preview-only --run-program=false`), so state is never written and a stack of any language is
// checked with Node.js and the CLI alone. Errors become the stack's failure, never the run's.
import { classify } from "./failures";
import { FindingCollector, withoutIgnored } from "./findings";
import { ignoreChangesOf } from "./ignores";
import type { StackReport } from "./types";
import { openWorkspace, publicBackend, stackOf, type Runner, type Target } from "./workspace";

export interface CheckOptions {
  /** Resource reads at once within the stack (the CLI's --parallel). */
  parallel?: number;
}

export function baseReport(t: Target): Omit<StackReport, "status" | "resourcesChecked" | "findings" | "durationMs"> {
  return { name: t.name, project: t.project, stack: t.stack, ...(t.backend ? { backend: publicBackend(t.backend) } : {}) };
}

export async function checkStack(runner: Runner, t: Target, opts: CheckOptions = {}): Promise<StackReport> {
  const started = Date.now();
  const collector = new FindingCollector();
  let failure: unknown;
  let ignore = new Map<string, string[]>();
  try {
    const { ws, dispose } = await openWorkspace(runner, t);
    try {
      const stack = stackOf(ws, t.name);
      await stack.previewRefresh({ runProgram: false, onEvent: collector.onEvent, ...(opts.parallel ? { parallel: opts.parallel } : {}) });
      if (collector.findings.some((f) => f.type === "changed")) {
        // Each resource's ignoreChanges, from the state, on the backend the workspace uses.
        const backend = ws.envVars.PULUMI_BACKEND_URL ?? process.env.PULUMI_BACKEND_URL;
        ignore = await ignoreChangesOf(stack, { backend, project: t.project, stack: t.stack });
      }
    } finally {
      dispose();
    }
  } catch (err) {
    failure = err;
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
  };
}
