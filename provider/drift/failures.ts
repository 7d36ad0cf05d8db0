// Why a stack could not be checked, in one line a report can carry: the CLI's `error:` lines,
// without the Automation API's wrapping, classified so CI can tell a missing passphrase from an API
// outage. Keys that an error echoes are masked.
import { redactKeys } from "../client/keys";
import type { FailureKind } from "./types";

const RULES: [FailureKind, RegExp][] = [
  ["passphrase", /passphrase|PULUMI_CONFIG_PASSPHRASE|incorrect passphrase|secrets manager/i],
  ["plugin", /no resource plugin|plugin .*(not found|could not be found)|could not (automatically )?(download|install|load) .*plugin|failed to load plugin|missing plugin/i],
  ["api", /\b(401|403|429|500|502|503|504)\b|unauthori[sz]ed|forbidden|service unavailable|ECONNREFUSED|timed out/i],
  ["backend", /backend|no such file|not found|could not (read|open|list)|failed to (read|load|list)|login|bucket|permission denied/i],
];

/** The CLI's own error lines from a failed CLI command (its stderr, then its output's diagnostics), or any error. */
export function errorText(err: unknown): string {
  const cli = err as { stdout?: unknown; stderr?: unknown } | undefined;
  const raw = err instanceof Error ? err.message : String(err);
  const stderr = typeof cli?.stdout === "string" && typeof cli.stderr === "string"
    ? `${cli.stderr}\n${cli.stdout}`
    : (/stderr: ([\s\S]*?)(?:\n\s*err\?:|$)/.exec(raw)?.[1] ?? raw);
  const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => /^error:/i.test(l)).map((l) => l.replace(/^error:\s*/i, ""));
  const text = (errors.length ? errors : lines.slice(-3)).join("; ");
  return redactKeys(text).slice(0, 2000);
}

export function classify(err: unknown, text = errorText(err)): { kind: FailureKind; message: string } {
  const kind = RULES.find(([, re]) => re.test(text))?.[0] ?? "other";
  return { kind, message: text || "the check failed without a message" };
}
