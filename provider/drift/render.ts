// The report's other formats: a console table per stack, Markdown (a PR comment or a CI job
// summary) and JUnit XML (one test case per stack). Values come from the report, where secrets are
// already "[secret]"; long values are cut so one object cannot flood a CI log.
import { pathText } from "./findings";
import type { Finding, Mark, Report, StackReport } from "./types";

const MAX_VALUE = 120;

export function showValue(v: unknown): string {
  if (v === undefined) return "(none)";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE - 1)}…` : s;
}

const shortUrn = (urn: string) => urn.split("::").slice(-1)[0];
const kindOf = (type: string) => type.split(":").pop() ?? type;

/** `update`, or `update (new)` when a baseline marked it. */
const marked = (what: string, mark: Mark | undefined) => (mark && mark !== "resolved" ? `${what} (${mark})` : what);

/** Rows of a stack's findings: resource, what, property, state, live; then what the baseline had that is gone. */
export function rows(s: StackReport): string[][] {
  const out: string[][] = [];
  for (const f of s.findings) {
    const res = `${kindOf(f.resourceType)} ${shortUrn(f.urn)}`;
    if (f.type === "changed" && !f.changelog?.length) out.push([res, marked("changed", f.baseline), "(not named)", "", oneLine(f.reason ?? "")]);
    else if (f.type === "changed") for (const c of f.changelog ?? []) out.push([res, marked(c.type, c.baseline), pathText(c.path, f.resourceType), showValue(c.from), showValue(c.to)]);
    else if (f.type === "deleted") out.push([res, marked("deleted", f.baseline), "", "exists", "(gone)"]);
    else out.push([res, "unreadable", "", "", oneLine(f.message ?? "")]);
  }
  for (const f of s.resolved ?? []) {
    const res = `${kindOf(f.resourceType)} ${shortUrn(f.urn)}`;
    if (f.changelog?.length) for (const c of f.changelog) out.push([res, "resolved", pathText(c.path, f.resourceType), "", ""]);
    else out.push([res, "resolved", f.type === "deleted" ? "(was deleted)" : "", "", ""]);
  }
  return out;
}

/** Rows of the unmanaged objects: kind, name, import id (and the baseline's mark). */
export function unmanagedRows(r: Report): string[][] {
  const u = r.unmanaged;
  if (!u) return [];
  return [
    ...u.objects.map((o) => [marked(o.kind, o.baseline), o.name, o.importId]),
    ...(u.resolved ?? []).map((o) => [`${o.kind} (resolved)`, o.name, o.importId]),
  ];
}

/** One line on the unmanaged objects, or why they could not be listed. */
export function unmanagedLine(r: Report): string | undefined {
  const u = r.unmanaged;
  if (!u) return undefined;
  if (u.error) return `unmanaged objects: not listed: ${u.error}`;
  const c = u.coverage;
  const partial = u.incomplete?.length ? ` (${u.incomplete.length} stack(s) could not be checked: objects they manage may be listed)` : "";
  return `${u.objects.length} unmanaged object${u.objects.length === 1 ? "" : "s"} in workspace ${u.workspaceId}; coverage ${c.percent}%: ${c.managed} of ${c.total} objects managed${partial}`;
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
  const u = unmanagedLine(r);
  if (u) {
    lines.push(u);
    const table = unmanagedRows(r);
    if (table.length) lines.push(...grid([["KIND", "NAME", "IMPORT ID"], ...table]).map((l) => `  ${l}`));
    lines.push("");
  }
  lines.push(summaryLine(r));
  if (r.baseline) lines.push(baselineLine(r));
  if (r.notification) lines.push(`email to ${r.notification.to.join(", ")}: ${r.notification.status}${r.notification.message ? ` (${r.notification.message})` : ""}`);
  if (r.webhook) lines.push(`webhook ${r.webhook.url}: ${r.webhook.status}${r.webhook.message ? ` (${r.webhook.message})` : ""}`);
  return `${lines.join("\n")}\n`;
}

export function baselineLine(r: Report): string {
  const b = r.baseline!;
  return `since the baseline of ${b.generatedAt}: ${b.new} new, ${b.persisting} persisting, ${b.resolved} resolved`;
}

export function summaryLine(r: Report): string {
  const m = r.summary;
  const unmanaged = m.objectsUnmanaged === undefined ? "" : `; ${m.objectsUnmanaged} unmanaged objects`;
  return `${m.stacksChecked} stacks checked: ${m.stacksDrifted} drifted, ${m.stacksFailed} failed; ${m.resourcesDrifted} of ${m.resourcesChecked} resources drifted, ${m.resourcesUnreadable} unreadable${unmanaged}`;
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
  if (r.baseline) out.push("", md(baselineLine(r)));
  for (const s of r.stacks.filter((x) => x.status !== "clean" || x.remediation || x.plan || x.resolved?.length)) {
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
  const u = unmanagedLine(r);
  if (u) {
    out.push("", "### Unmanaged objects", "", md(u));
    const table = unmanagedRows(r);
    if (table.length) out.push("", "| Kind | Name | Import id |", "|---|---|---|", ...table.map((row) => `| ${md(row[0])} | ${md(row[1])} | \`${md(row[2])}\` |`));
  }
  return `${out.join("\n")}\n`;
}

const xml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

function findingText(f: Finding): string {
  const res = `${kindOf(f.resourceType)} ${shortUrn(f.urn)}`;
  if (f.type === "deleted") return `${res}: deleted outside Pulumi (${f.urn})`;
  if (f.type === "unreadable") return `${res}: unreadable: ${f.message ?? ""} (${f.urn})`;
  if (!f.changelog?.length) return `${res}: changed, no property named: ${f.reason ?? ""} (${f.urn})`;
  return (f.changelog ?? []).map((c) => `${res}: ${c.type} ${pathText(c.path, f.resourceType)}: ${showValue(c.from)} -> ${showValue(c.to)}`).join("\n");
}

export function renderJunit(r: Report): string {
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
  const u = r.unmanaged;
  if (u) {
    const open = `    <testcase classname="cloudplatform-drift" name="unmanaged objects${u.workspaceId ? ` in workspace ${xml(u.workspaceId)}` : ""}" time="0.000">`;
    if (u.error) cases.push(`${open}\n      <error message="${xml(u.error.slice(0, 500))}">${xml(u.error)}</error>\n    </testcase>`);
    else if (u.objects.length) cases.push(`${open}\n      <failure message="${xml(unmanagedLine(r)!)}" type="unmanaged">${xml(u.objects.map((o) => `${o.kind} ${o.name} (${o.importId})`).join("\n"))}</failure>\n    </testcase>`);
    else cases.push(`${open}</testcase>`);
  }
  const time = (r.stacks.reduce((n, s) => n + s.durationMs, 0) / 1000).toFixed(3);
  const failures = cases.filter((c) => c.includes("<failure ")).length;
  const errors = cases.filter((c) => c.includes("<error ")).length;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="cloudplatform-drift" tests="${cases.length}" failures="${failures}" errors="${errors}" time="${time}">`,
    `  <testsuite name="drift" tests="${cases.length}" failures="${failures}" errors="${errors}" time="${time}" timestamp="${xml(r.generatedAt)}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
