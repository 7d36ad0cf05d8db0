// The mail outbox: every message the worker's emulator accepted, with its full content, so a test
// can assert what the app sent and follow the links in it (sign-up confirmations, password resets).
import { control } from "./control";

export interface OutboxMessage {
  id: string;
  from: string;
  to: string;
  cc: string[];
  bcc: string[];
  subject: string;
  status: string;
  sandbox: boolean;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  created_at: string;
  [field: string]: unknown;
}

/** The messages to (or cc/bcc) `to`, oldest first; all of them without `to`. */
export async function outbox(to?: string): Promise<OutboxMessage[]> {
  const q = to ? `?${new URLSearchParams({ to })}` : "";
  return (await control<{ data: OutboxMessage[] }>("GET", `/mail/outbox${q}`)).data;
}

/** Empties the outbox (reset() does too, with everything else). */
export async function clearOutbox(): Promise<void> {
  await control("DELETE", "/mail/outbox");
}

export interface WaitForEmailOptions {
  /** Only a message whose subject contains this text, or matches this pattern. */
  subject?: string | RegExp;
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** How often to look (default 50 ms). */
  intervalMs?: number;
}

/**
 * Resolves with the newest message to `to` that matches, polling the outbox until one arrives; an
 * app often sends after its answer, from a queue. Rejects after `timeoutMs` with what did arrive.
 */
export async function waitForEmail(to: string, opts: WaitForEmailOptions = {}): Promise<OutboxMessage> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  const matches = (m: OutboxMessage) =>
    opts.subject === undefined || (typeof opts.subject === "string" ? m.subject.includes(opts.subject) : opts.subject.test(m.subject));
  for (;;) {
    const all = await outbox(to);
    const found = all.filter(matches).pop();
    if (found) return found;
    if (Date.now() >= deadline) {
      const seen = all.map((m) => `'${m.subject}'`).join(", ") || "none";
      throw new Error(`no email to ${to}${opts.subject === undefined ? "" : ` with subject ${String(opts.subject)}`} within ${timeoutMs} ms (messages to it: ${seen})`);
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&quot;": '"', "&#39;": "'", "&lt;": "<", "&gt;": ">" };

/** Every http(s) link in a message: the html's hrefs first, then bare URLs in the html and text, without repeats. */
export function links(message: Pick<OutboxMessage, "html" | "text">): string[] {
  const decode = (s: string) => s.replace(/&(amp|quot|#39|lt|gt);/g, (e) => ENTITIES[e]);
  const found: string[] = [];
  for (const m of (message.html ?? "").matchAll(/href\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) found.push(decode(m[1] ?? m[2]));
  for (const body of [message.html ?? "", message.text ?? ""]) {
    for (const m of body.matchAll(/https?:\/\/[^\s"'<>()]+/g)) found.push(decode(m[0]).replace(/[.,;:!?]+$/, ""));
  }
  return [...new Set(found.filter((u) => /^https?:\/\//i.test(u)))];
}

/**
 * The first link in a message that contains `match` (a string) or matches it (a pattern); the
 * first link at all without one. Throws, listing the links there are, when none fits.
 */
export function extractLink(message: Pick<OutboxMessage, "html" | "text">, match?: string | RegExp): string {
  const all = links(message);
  const found = all.find((u) => match === undefined || (typeof match === "string" ? u.includes(match) : match.test(u)));
  if (found === undefined) {
    throw new Error(`no link${match === undefined ? "" : ` matching ${String(match)}`} in the message (links: ${all.join(", ") || "none"})`);
  }
  return found;
}
