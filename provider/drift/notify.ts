// --notify-email: the report as one email (HTML and text) through the platform's transactional
// email API (POST /v1/emails). The key comes from the environment, never a flag; a failed send is
// reported in the report and on stderr, never fatal to the drift result.
import type { CloudPlatformClient } from "../client";
import { baselineLine, rows, summaryLine, unmanagedLine, unmanagedRows } from "./render";
import type { NotificationResult, Report } from "./types";

export interface NotifyOptions {
  to: string[];
  /** `Name <address>` on a verified sending domain (or the sandbox's test domain). */
  from?: string;
}

/** Where the key and the sender are read from. */
export const MAIL_ENV = { key: ["CLOUDPLATFORM_MAIL_KEY", "MAIL_API_KEY"], from: "CLOUDPLATFORM_DRIFT_FROM", baseUrl: "CLOUDPLATFORM_BASE_URL" } as const;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function subject(r: Report): string {
  const m = r.summary;
  if (r.baseline?.new && !m.stacksFailed) return `Drift: ${r.baseline.new} new since the last report (${m.stacksDrifted} of ${m.stacksChecked} stacks drifted)`;
  if (m.stacksFailed) return `Drift: ${m.stacksFailed} of ${m.stacksChecked} stacks could not be checked, ${m.stacksDrifted} drifted`;
  if (m.stacksDrifted) return `Drift: ${m.stacksDrifted} of ${m.stacksChecked} stacks drifted (${m.resourcesDrifted} resources)`;
  return `Drift: no drift in ${m.stacksChecked} stacks`;
}

export function emailText(r: Report): string {
  const lines = [summaryLine(r), ...(r.baseline ? [baselineLine(r)] : []), ""];
  for (const s of r.stacks.filter((x) => x.status !== "clean" || x.resolved?.length)) {
    lines.push(`${s.name}: ${s.status}${s.error ? ` (${s.error.kind}: ${s.error.message})` : ""}`);
    for (const [res, change, path, from, to] of rows(s)) lines.push(`  ${res} ${change}${path ? ` ${path}` : ""}${from || to ? `: ${from} -> ${to}` : ""}`);
  }
  const u = unmanagedLine(r);
  if (u) lines.push("", u, ...unmanagedRows(r).map(([kind, name, id]) => `  ${kind} ${name} (${id})`));
  return `${lines.join("\n")}\n`;
}

export function emailHtml(r: Report): string {
  const parts = [`<h2>Drift report</h2>`, `<p>${esc(summaryLine(r))}</p>`, ...(r.baseline ? [`<p>${esc(baselineLine(r))}</p>`] : [])];
  for (const s of r.stacks.filter((x) => x.status !== "clean" || x.resolved?.length)) {
    parts.push(`<h3>${esc(s.name)}: ${esc(s.status)}</h3>`);
    if (s.error) parts.push(`<p>${esc(`${s.error.kind}: ${s.error.message}`)}</p>`);
    const table = rows(s);
    if (table.length) {
      parts.push(`<table border="1" cellpadding="4" cellspacing="0"><tr><th>Resource</th><th>Change</th><th>Property</th><th>State</th><th>Live</th></tr>`);
      for (const row of table) parts.push(`<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`);
      parts.push(`</table>`);
    }
  }
  const u = unmanagedLine(r);
  if (u) {
    parts.push(`<h3>Unmanaged objects</h3>`, `<p>${esc(u)}</p>`);
    const table = unmanagedRows(r);
    if (table.length) parts.push(`<table border="1" cellpadding="4" cellspacing="0"><tr><th>Kind</th><th>Name</th><th>Import id</th></tr>${table.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</table>`);
  }
  return `<!doctype html><html><body>${parts.join("\n")}</body></html>`;
}

export async function notify(r: Report, opts: NotifyOptions, env: NodeJS.ProcessEnv = process.env): Promise<NotificationResult> {
  const to = opts.to;
  const key = MAIL_ENV.key.map((k) => env[k]).find(Boolean);
  const from = opts.from ?? env[MAIL_ENV.from];
  const baseUrl = env[MAIL_ENV.baseUrl];
  const fail = (message: string) => {
    process.stderr.write(`cloudplatform-drift: the report was not mailed: ${message}\n`);
    return { to, status: "failed" as const, message };
  };
  if (!key) return fail(`no mail key: set ${MAIL_ENV.key[0]}`);
  if (!from) return fail(`no sender: give --notify-from or set ${MAIL_ENV.from} (an address on a verified sending domain)`);
  if (!baseUrl) return fail(`no API address: set ${MAIL_ENV.baseUrl}`);
  let client: CloudPlatformClient | undefined;
  try {
    // The client is loaded only to mail: a run without --notify-email starts faster.
    const { CloudPlatformClient } = await import("../client");
    client = new CloudPlatformClient({ apiKey: key, baseUrl, retry: { maxRetries: 2, maxElapsedMs: 20_000 } });
    const sent = await client.post<{ id: string; status: string; rejected?: { address: string; reason: string }[] }>(
      "/v1/emails",
      { from, to, subject: subject(r), html: emailHtml(r), text: emailText(r), tags: { kind: "drift-report" } },
      { idempotencyKey: true },
    );
    const rejected = sent.rejected?.map((x) => `${x.address} (${x.reason})`).join(", ");
    return { to, status: "sent", id: sent.id, ...(rejected ? { message: `not mailed to ${rejected}` } : {}) };
  } catch (err) {
    return fail((err as Error).message);
  } finally {
    await client?.close().catch(() => {});
  }
}
