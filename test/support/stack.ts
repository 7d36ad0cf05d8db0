// Lifecycle tests drive the real Pulumi CLI through the Automation API against a test emulator.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EngineEvent, PreviewResult, PulumiFn, UpResult } from "@pulumi/pulumi/automation";
import { openStack, ROOT, runsInProcess, type StackHandle, TOOLS_BIN } from "../../scripts/pulumi-env";
import type { TestEmulator } from "./emulator";

export const PROGRAMS = join(ROOT, "test", "programs");
export const EXAMPLES = join(ROOT, "examples");

let counter = 0;

/**
 * A stack of `program` (a folder under test/programs or an absolute path) wired to the emulator.
 *
 * A TypeScript program whose only source is index.ts runs in this process (the Automation API's
 * inline mode): each operation then costs the CLI and the provider, not a Node process that
 * loads @pulumi/pulumi and TypeScript again. `process: true` (or CLOUDPLATFORM_TEST_PROGRAMS=process
 * for the whole suite) runs it in the Node process the CLI starts, as `pulumi up` in a shell does;
 * tests that kill the CLI mid-operation need that.
 */
export async function testStack(
  emu: TestEmulator,
  program: string,
  config: Record<string, string | { value: string; secret?: boolean }> = {},
  opts: { keyVia?: "env" | "config"; env?: Record<string, string>; process?: boolean } = {},
): Promise<StackHandle> {
  const env: Record<string, string> = { CLOUDPLATFORM_BASE_URL: emu.baseUrl, ...opts.env };
  const cfg = { ...config };
  if ((opts.keyVia ?? "env") === "env") env.CLOUDPLATFORM_API_KEY = emu.apiKey;
  else cfg["cloudplatform:apiKey"] = { value: emu.apiKey, secret: true };
  const programDir = program.startsWith("/") ? program : join(PROGRAMS, program);
  return openStack({
    programDir,
    stackName: `t${process.pid}x${Date.now().toString(36)}x${counter++}`,
    env,
    config: cfg,
    inProcess: !opts.process && process.env.CLOUDPLATFORM_TEST_PROGRAMS !== "process" && runsInProcess(programDir),
  });
}

/**
 * A stack of an inline program (run in this process) with the native plugin: the engine finds
 * bin/pulumi-resource-cloudplatform on PATH, as it would an installed plugin.
 */
export async function inlineStack(
  emu: TestEmulator,
  projectName: string,
  run: PulumiFn,
  config: Record<string, string | { value: string; secret?: boolean }> = {},
): Promise<StackHandle> {
  const work = mkdtempSync(join(tmpdir(), "cloudplatform-inline-"));
  const s = await openStack({
    programDir: work,
    program: { projectName, run },
    stackName: `t${process.pid}x${Date.now().toString(36)}x${counter++}`,
    env: { PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH ?? ""}`, CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey },
    config,
  });
  return { ...s, dispose: () => s.dispose().finally(() => rmSync(work, { recursive: true, force: true })) };
}

/** Runs `pulumi <args>` as the stack's workspace runs its commands (its CLI, environment and folder). */
export function pulumiCmd(s: StackHandle, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return (s.stack.workspace as unknown as { runPulumiCmd(a: string[]): Promise<{ stdout: string; stderr: string }> }).runPulumiCmd(args);
}

/** Counts of planned or applied operations, without "same". */
export function changes(r: PreviewResult | UpResult): Record<string, number> {
  const summary = "changeSummary" in r ? r.changeSummary : r.summary.resourceChanges ?? {};
  return Object.fromEntries(Object.entries(summary).filter(([op, n]) => op !== "same" && (n ?? 0) > 0)) as Record<string, number>;
}

/** The engine's step for each resource, keyed `<Kind>::<name>` (components and the stack left out). */
export type Steps = Record<string, "same" | "create" | "update" | "replace" | "delete">;

const RANK = { same: 0, delete: 1, create: 2, update: 3, replace: 4 } as const;

/**
 * Records the step the engine takes (or, in a preview, plans) for each resource, from the
 * operation's events: pass `onEvent` to preview or up, then read `steps`. A replacement's several
 * steps read as one `replace`; refresh steps are left out.
 */
export function stepRecorder(): { onEvent: (e: EngineEvent) => void; steps: Steps } {
  const steps: Steps = {};
  const onEvent = (e: EngineEvent) => {
    const m = e.resourcePreEvent?.metadata;
    if (!m || m.op === "refresh" || m.op === "read") return;
    if (!/^(cloudplatform:index:|pulumi-nodejs:dynamic\/cloudplatform:)/.test(m.type) || /:Verified\w+$/.test(m.type)) return;
    const kind = m.type.split(":").pop()!;
    const name = m.urn.split("::").pop()!;
    const op = /replace/.test(m.op) ? "replace" : (m.op as keyof typeof RANK);
    if (!(op in RANK)) return;
    const key = `${kind}::${name}`;
    if (!steps[key] || RANK[op] > RANK[steps[key]]) steps[key] = op;
  };
  return { onEvent, steps };
}

/**
 * The refresh changes an operation's events show, as `<Kind>::<name> <what>`: a refresh step that
 * carries a diff or gives the resource other inputs than it had (`preview --refresh`, `up
 * --refresh`), or (`standalone`: `refresh`, `refresh --preview-only`) a resource that comes out as
 * other than same. `--expect-no-changes` passes
 * with either (it counts the program's steps), and the CLI prints each as `~ <type> <name> refresh`.
 */
export function refreshRecorder(opts: { standalone?: boolean } = {}): { onEvent: (e: EngineEvent) => void; changes: string[] } {
  const found: string[] = [];
  const onEvent = (e: EngineEvent) => {
    const m = e.resOutputsEvent?.metadata;
    if (!m || m.type.startsWith("pulumi:providers:") || !(m.old ?? m.new)?.custom) return;
    const res = `${m.type.split(":").pop()}::${m.urn.split("::").pop()}`;
    // A standalone refresh reports each resource as same, update or delete; within preview and up, as refresh.
    if (opts.standalone && m.op !== "same") found.push(`${res} ${m.op}`);
    if (m.op !== "refresh" && !opts.standalone) return;
    const named = [...(m.diffs ?? []), ...Object.keys(m.detailedDiff ?? {})];
    if (named.length) found.push(`${res} diff ${[...new Set(named)].sort().join(",")}`);
    const olds = (m.old?.inputs ?? {}) as Record<string, unknown>;
    const news = (m.new?.inputs ?? {}) as Record<string, unknown>;
    const rewritten = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
    if (rewritten.length) found.push(`${res} inputs ${rewritten.sort().join(",")}`);
  };
  return { onEvent, changes: found };
}

/**
 * After a successful `up`: refresh finds no drift and the program no change, which is what a
 * nightly `pulumi preview --refresh --expect-no-changes` asserts; and the refresh itself changes
 * nothing, not even a resource's inputs (no `~ refresh` line).
 */
export async function expectNoDrift(s: StackHandle): Promise<void> {
  const quiet = refreshRecorder();
  expect(changes(await s.stack.preview({ refresh: true, expectNoChanges: true, diff: true, onEvent: quiet.onEvent }))).toEqual({});
  expect(quiet.changes).toEqual([]);
}
