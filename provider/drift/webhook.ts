// --notify-webhook URL: posts the JSON report, with a short `text` a chat tool shows (Slack,
// Mattermost and Teams incoming webhooks read `text`). A 5xx, a 429 or a lost connection is retried
// with exponential backoff, honouring Retry-After (capped); any other answer is final. A webhook
// URL's path and query are often its secret, so only its origin is printed or kept in the report.
// The body is the report, whose secrets are already "[secret]"; no key of the run is in it.
import { summaryLine } from "./render";
import type { Report, WebhookResult } from "./types";

export interface WebhookOptions {
  /** Attempts in all (default 4). */
  attempts?: number;
  /** The first backoff (default 1 s), doubled each retry. */
  baseDelayMs?: number;
  /** The longest wait between two attempts, Retry-After included (default 30 s). */
  maxDelayMs?: number;
  /** Each attempt's timeout (default 15 s). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
}

/** The receiver's origin: what may be printed of a webhook URL. */
export function webhookOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(not a URL)";
  }
}

/** The short line a chat tool shows. */
export function webhookText(r: Report): string {
  const m = r.summary;
  const head = m.stacksFailed ? "Drift check failed for some stacks" : m.stacksDrifted || m.objectsUnmanaged ? "Drift found" : "No drift";
  const parts = [`${head}: ${summaryLine(r)}`];
  if (r.baseline) parts.push(`since ${r.baseline.generatedAt}: ${r.baseline.new} new, ${r.baseline.persisting} persisting, ${r.baseline.resolved} resolved`);
  if (r.unmanaged) parts.push(`${r.unmanaged.objects.length} unmanaged objects (coverage ${r.unmanaged.coverage.percent}%)`);
  const drifted = r.stacks.filter((s) => s.status !== "clean").map((s) => `${s.name} ${s.status}`);
  if (drifted.length) parts.push(drifted.slice(0, 10).join(", ") + (drifted.length > 10 ? `, and ${drifted.length - 10} more` : ""));
  return parts.join("\n");
}

/** The wait a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleeper = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function postWebhook(url: string, r: Report, opts: WebhookOptions = {}): Promise<WebhookResult> {
  const origin = webhookOrigin(url);
  const attempts = opts.attempts ?? 4;
  const base = opts.baseDelayMs ?? 1000;
  const max = opts.maxDelayMs ?? 30_000;
  const sleep = opts.sleep ?? sleeper;
  const log = opts.log ?? ((line: string) => process.stderr.write(`cloudplatform-drift: ${line}\n`));
  const fail = (n: number, message: string): WebhookResult => {
    log(`the report was not posted to ${origin}: ${message}`);
    return { url: origin, status: "failed", attempts: n, message };
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(0, "--notify-webhook: not a URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return fail(0, `--notify-webhook: ${parsed.protocol} is not http or https`);
  const body = JSON.stringify({ text: webhookText(r), ...r });
  let last = "";
  for (let n = 1; n <= attempts; n++) {
    let wait: number | undefined;
    try {
      const res = await fetch(parsed, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "cloudplatform-drift" },
        body,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
        redirect: "error",
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return { url: origin, status: "sent", attempts: n };
      last = `HTTP ${res.status}`;
      if (res.status < 500 && res.status !== 429) return fail(n, last);
      wait = retryAfterMs(res.headers.get("retry-after"));
    } catch (err) {
      // The error's text may quote the URL: only its kind is kept.
      last = (err as Error).name === "TimeoutError" ? "timed out" : `connection failed (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name})`;
    }
    if (n === attempts) break;
    const delay = Math.min(max, wait ?? base * 2 ** (n - 1));
    log(`posting the report to ${origin}: ${last}; retrying in ${(delay / 1000).toFixed(1)} s`);
    await sleep(delay);
  }
  return fail(attempts, `${last} after ${attempts} attempts`);
}
