// --plan and --remediate: both run the stack's program, so they need its folder (--dir). The
// plan is `preview --refresh`; a remediation is `up --refresh`, refused when its plan would
// replace or delete anything (unless --allow-replace), and reports what it restored. They run
// through the Automation API, loaded only when asked for.
import type { EngineEvent, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import { errorText } from "./failures";
import type { PlannedStep, Remediation, StackReport } from "./types";
import { envFor, type Runner, type Target } from "./workspace";

const QUIET = new Set(["same", "refresh", "read", "discard"]);
const DESTRUCTIVE = /replace|delete/;

function recorder(kind: "pre" | "out"): { steps: PlannedStep[]; onEvent: (e: EngineEvent) => void } {
  const steps = new Map<string, PlannedStep>();
  const onEvent = (e: EngineEvent) => {
    const m = kind === "pre" ? e.resourcePreEvent?.metadata : e.resOutputsEvent?.metadata;
    if (!m || QUIET.has(m.op) || m.type === "pulumi:pulumi:Stack" || m.type.startsWith("pulumi:providers:")) return;
    const op = /replace/.test(m.op) ? "replace" : m.op;
    // A replacement's several steps read as one.
    if (!steps.has(m.urn) || op === "replace") steps.set(m.urn, { urn: m.urn, resourceType: m.type, op });
  };
  return { get steps() { return [...steps.values()]; }, onEvent };
}

let command: Promise<PulumiCommand> | undefined;

async function withStack<T>(runner: Runner, t: Target & { dir: string }, fn: (s: Stack) => Promise<T>): Promise<T> {
  const auto = await import("@pulumi/pulumi/automation");
  command ??= auto.PulumiCommand.get({ skipVersionCheck: true });
  const ws = await auto.LocalWorkspace.create({ workDir: t.dir, envVars: envFor(runner, t.backend), pulumiCommand: await command });
  // The stack by name, without `pulumi stack select`: every command passes `--stack`.
  const stack = Object.assign(Object.create(auto.Stack.prototype) as Stack, { name: t.name, workspace: ws, ready: Promise.resolve() });
  return fn(stack);
}

/** What `up` would change after a refresh: the program runs, nothing is written. */
export async function planStack(runner: Runner, t: Target): Promise<NonNullable<StackReport["plan"]>> {
  if (!t.dir) return { steps: [], error: "no program folder: give the stack's project with --dir to plan it" };
  const rec = recorder("pre");
  try {
    await withStack(runner, { ...t, dir: t.dir }, (s) => s.preview({ refresh: true, onEvent: rec.onEvent }));
    return { steps: rec.steps };
  } catch (err) {
    return { steps: rec.steps, error: errorText(err) };
  }
}

export async function remediateStack(runner: Runner, t: Target, allowReplace: boolean, planned?: StackReport["plan"]): Promise<Remediation> {
  if (!t.dir) return { status: "skipped", resources: [], message: "no program folder: give the stack's project with --dir to remediate it" };
  const plan = planned ?? (await planStack(runner, t));
  if (plan.error) return { status: "failed", resources: [], message: `plan failed: ${plan.error}` };
  const destructive = plan.steps.filter((s) => DESTRUCTIVE.test(s.op));
  if (destructive.length && !allowReplace) {
    return {
      status: "refused",
      resources: destructive.map((s) => ({ urn: s.urn, op: s.op })),
      message: `the plan would ${[...new Set(destructive.map((s) => s.op))].join(" and ")} ${destructive.length} resource(s); rerun with --allow-replace to let it`,
    };
  }
  const rec = recorder("out");
  try {
    await withStack(runner, { ...t, dir: t.dir }, (s) => s.up({ refresh: true, onEvent: rec.onEvent }));
    return { status: "restored", resources: rec.steps.map((s) => ({ urn: s.urn, op: s.op })) };
  } catch (err) {
    return { status: "failed", resources: rec.steps.map((s) => ({ urn: s.urn, op: s.op })), message: errorText(err) };
  }
}
