// The report's other formats: a console table per stack, Markdown (a PR comment or a CI job
// summary) and JUnit XML (one test case per stack). Values come from the report, where secrets are
// already "[secret]"; long values are cut so one object cannot flood a CI log.
import { pathText } from "./findings";
import type { Finding, Report, StackReport } from "./types";

const MAX_VALUE = 120;

export function showValue(v: unknown): string {
  if (v === undefined) return "(none)";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE - 1)}…` : s;
}

const shortUrn = (urn: string) => urn.split("::").slice(-1)[0];
const kindOf = (type: string) => type.split(":").pop() ?? type;

/** Rows of a stack's findings: resource, what, property, state, live. */
export function rows(s: StackReport): string[][] {
  const out: string[][] = [];
  for (const f of s.findings) {
    const res = `${kindOf(f.resourceType)} ${shortUrn(f.urn)}`;
    if (f.type === "changed") for (const c of f.changelog ?? []) out.push([res, c.type, pathText(c.path, f.resourceType), showValue(c.from), showValue(c.to)]);
    else if (f.type === "deleted") out.push([res, "deleted", "", "exists", "(gone)"]);
    else out.push([res, "unreadable", "", "", oneLine(f.message ?? "")]);
  }
  return out;
}

const oneLine = (s: string) => showValue(s.replace(/\s+/g, " "));

function statusLine(s: StackReport): string {
  if (s.status === "failed") return `FAILED (${s.error?.kind}): ${oneLine(s.error?.message ?? "")}`;
  if (s.status === "drifted") return `DRIFTED: ${s.findings.filter((f) => f.type !== "unreadable").length} of ${s.resourcesChecked} resources`;
  return `clean: ${s.resourcesChecked} resources`;
}

export function renderConsole(r: Report): string {
  const lines: string[] = [];
  for (const s of r.stacks) {
    lines.push(`${s.name}  ${statusLine(s)}`);
    const table = rows(s);
    if (table.length) lines.push(...grid([["RESOURCE", "CHANGE", "PROPERTY", "STATE", "LIVE"], ...table]).map((l) => `  ${l}`));
    for (const step of s.plan?.steps ?? []) lines.push(`  plan: ${step.op} ${kindOf(step.resourceType)} ${shortUrn(step.urn)}`);
    if (s.plan?.error) lines.push(`  plan failed: ${oneLine(s.plan.error)}`);
    if (s.remediation) lines.push(`  remediation ${s.remediation.status}${s.remediation.message ? `: ${oneLine(s.remediation.message)}` : ""}${s.remediation.resources.length ? ` (${s.remediation.resources.map((x) => `${x.op} ${shortUrn(x.urn)}`).join(", ")})` : ""}`);
    lines.push("");
  }
  lines.push(summaryLine(r));
  if (r.notification) lines.push(`email to ${r.notification.to.join(", ")}: ${r.notification.status}${r.notification.message ? ` (${r.notification.message})` : ""}`);
  return `${lines.join("\n")}\n`;
}

export function summaryLine(r: Report): string {
  const m = r.summary;
  return `${m.stacksChecked} stacks checked: ${m.stacksDrifted} drifted, ${m.stacksFailed} failed; ${m.resourcesDrifted} of ${m.resourcesChecked} resources drifted, ${m.resourcesUnreadable} unreadable`;
}

function grid(table: string[][]): string[] {
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  return table.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd());
}

const md = (s: string) => s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/[<>]/g, (c) => (c === "<" ? "&lt;" : "&gt;")).replace(/`/g, "'").replace(/\n/g, " ");

export function renderMarkdown(r: Report): string {
  const m = r.summary;
  const icon = { clean: "✅", drifted: "⚠️", failed: "❌" } as const;
  const out = [
    `## Drift report`,
    "",
    `**${m.stacksChecked}** stacks checked: **${m.stacksDrifted}** drifted, **${m.stacksFailed}** failed. **${m.resourcesDrifted}** of ${m.resourcesChecked} resources drifted${m.resourcesUnreadable ? `, ${m.resourcesUnreadable} unreadable` : ""}.`,
    "",
    "| Stack | Status | Resources | Drifted |",
    "|---|---|---|---|",
    ...r.stacks.map((s) => `| ${md(s.name)} | ${icon[s.status]} ${s.status} | ${s.resourcesChecked} | ${s.findings.filter((f) => f.type !== "unreadable").length} |`),
  ];
  for (const s of r.stacks.filter((x) => x.status !== "clean" || x.remediation || x.plan)) {
    out.push("", `### ${md(s.name)}`, "");
    if (s.error) out.push(`**Could not be checked** (${s.error.kind}): ${md(s.error.message)}`, "");
    const table = rows(s);
    if (table.length) {
      out.push("| Resource | Change | Property | State | Live |", "|---|---|---|---|---|");
      for (const row of table) out.push(`| ${row.map((c, i) => (i >= 2 && c ? `\`${md(c)}\`` : md(c))).join(" | ")} |`);
    }
    if (s.plan?.steps.length) out.push("", `\`up\` would: ${s.plan.steps.map((x) => `${x.op} ${md(shortUrn(x.urn))}`).join(", ")}`);
    if (s.plan?.error) out.push("", `Plan failed: ${md(s.plan.error)}`);
    if (s.remediation) out.push("", `Remediation **${s.remediation.status}**${s.remediation.message ? `: ${md(s.remediation.message)}` : ""}${s.remediation.resources.length ? ` (${s.remediation.resources.map((x) => `${x.op} ${md(shortUrn(x.urn))}`).join(", ")})` : ""}`);
  }
  return `${out.join("\n")}\n`;
}

const xml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

function findingText(f: Finding): string {
  const res = `${kindOf(f.resourceType)} ${shortUrn(f.urn)}`;
  if (f.type === "deleted") return `${res}: deleted outside Pulumi (${f.urn})`;
  if (f.type === "unreadable") return `${res}: unreadable: ${f.message ?? ""} (${f.urn})`;
  return (f.changelog ?? []).map((c) => `${res}: ${c.type} ${pathText(c.path, f.resourceType)}: ${showValue(c.from)} -> ${showValue(c.to)}`).join("\n");
}

export function renderJunit(r: Report): string {
  const m = r.summary;
  const cases = r.stacks.map((s) => {
    const open = `    <testcase classname="${xml(s.project || "cloudplatform-drift")}" name="${xml(s.name)}" time="${(s.durationMs / 1000).toFixed(3)}">`;
    const body = s.findings.filter((f) => f.type !== "unreadable").map(findingText).join("\n");
    if (s.status === "failed") {
      return `${open}\n      <error message="${xml(`${s.error?.kind}: ${s.error?.message ?? ""}`.slice(0, 500))}">${xml([s.error?.message ?? "", ...s.findings.map(findingText)].join("\n"))}</error>\n    </testcase>`;
    }
    if (s.status === "drifted") {
      const n = s.findings.length;
      return `${open}\n      <failure message="${n} resource${n === 1 ? "" : "s"} drifted" type="drift">${xml(body)}</failure>\n    </testcase>`;
    }
    return `${open}</testcase>`;
  });
  const time = (r.stacks.reduce((n, s) => n + s.durationMs, 0) / 1000).toFixed(3);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="cloudplatform-drift" tests="${m.stacksChecked}" failures="${r.stacks.filter((s) => s.status === "drifted").length}" errors="${m.stacksFailed}" time="${time}">`,
    `  <testsuite name="drift" tests="${m.stacksChecked}" failures="${r.stacks.filter((s) => s.status === "drifted").length}" errors="${m.stacksFailed}" time="${time}" timestamp="${xml(r.generatedAt)}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
