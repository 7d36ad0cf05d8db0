// Lifecycle tests drive the real Pulumi CLI through the Automation API against a test emulator.
import { join } from "node:path";
import type { PreviewResult, UpResult } from "@pulumi/pulumi/automation";
import { openStack, ROOT, type StackHandle } from "../../scripts/pulumi-env";
import type { TestEmulator } from "./emulator";

export const PROGRAMS = join(ROOT, "test", "programs");
export const EXAMPLES = join(ROOT, "examples");

let counter = 0;

/** A stack of `program` (a folder under test/programs or an absolute path) wired to the emulator. */
export async function testStack(
  emu: TestEmulator,
  program: string,
  config: Record<string, string | { value: string; secret?: boolean }> = {},
  opts: { keyVia?: "env" | "config"; env?: Record<string, string> } = {},
): Promise<StackHandle> {
  const env: Record<string, string> = { CLOUDPLATFORM_BASE_URL: emu.baseUrl, ...opts.env };
  const cfg = { ...config };
  if ((opts.keyVia ?? "env") === "env") env.CLOUDPLATFORM_API_KEY = emu.apiKey;
  else cfg["cloudplatform:apiKey"] = { value: emu.apiKey, secret: true };
  return openStack({
    programDir: program.startsWith("/") ? program : join(PROGRAMS, program),
    stackName: `t${process.pid}x${Date.now().toString(36)}x${counter++}`,
    env,
    config: cfg,
  });
}

/** Counts of planned or applied operations, without "same". */
export function changes(r: PreviewResult | UpResult): Record<string, number> {
  const summary = "changeSummary" in r ? r.changeSummary : r.summary.resourceChanges ?? {};
  return Object.fromEntries(Object.entries(summary).filter(([op, n]) => op !== "same" && (n ?? 0) > 0)) as Record<string, number>;
}
