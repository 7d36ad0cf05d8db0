// Transactional email (conventions §2.1-2.5, §3.1, §4.3-4.7): sends, batches, message records and
// the list. One send stores its content once (`emailSends`) and one record per primary recipient
// (`emails`). A real key's record moves queued -> sent -> delivered on the emulator clock, derived
// at read time; a sandbox key's record holds its simulated outcome from the start and is never billed.
import type { Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { badRequest, forbidden, notFound } from "../errors";
import { newId } from "../store";
import { domainOf, formatAddress, localPartOf, type Message } from "./email-message";
import { DEFAULT_PAGE, MAX_BATCH, MAX_PAGE, type SentToday } from "./email-limits";
import { addSuppression, domainsOf, type MailDomain, quotaDay, suppressionsOf } from "./mail";
import { speedMs } from "./services";

/** The domain that receives sandbox mail (`{test_mail_domain}`); printed as `testMailDomain`. */
export const TEST_MAIL_DOMAIN = "sandbox.cloudplatform.test";
const QUEUE_MS = 1_000;
const DELIVER_MS = 2_000;
const OUTCOMES = ["delivered", "bounced", "complained"] as const;

type Outcome = (typeof OUTCOMES)[number] | "rejected";

export interface EmailSend {
  id: string;
  workspaceId: string;
  keyId: string;
  sandbox: boolean;
  /** The sending domain; null for the sandbox's test mail domain. */
  domainId: string | null;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: Message["attachments"];
  tags: Record<string, string>;
  /** Recipients actually sent to (to, cc, bcc less the suppressed): what the daily quota counts. */
  recipients: number;
  rejected: { address: string; reason: "suppressed" }[];
  createdAtMs: number;
  createdAt: string;
}

export interface EmailRecord {
  id: string;
  sendId: string;
  workspaceId: string;
  sandbox: boolean;
  to: string;
  outcome: Outcome;
  createdAtMs: number;
  createdAt: string;
}

export const sends = (emu: Emu) => emu.store.table<EmailSend>("emailSends");
export const records = (emu: Emu) => emu.store.table<EmailRecord>("emails");

/** Recipients a domain sent to with real keys since a time (the quota day's start). */
export const sentSince: (emu: Emu) => SentToday = (emu) => (d, sinceMs) =>
  sends(emu).where((s) => s.domainId === d.id && !s.sandbox && s.createdAtMs >= sinceMs).reduce((n, s) => n + s.recipients, 0);

// ---- send ----
/** The sending domain of `from`: VERIFIED in the workspace, or (sandbox) any added domain or the test mail domain. */
function sendingDomain(emu: Emu, who: Principal, ws: Workspace, from: string): MailDomain | null {
  const name = domainOf(from);
  if (who.isSandbox && name === TEST_MAIL_DOMAIN) return null;
  const d = domainsOf(emu, ws).find((x) => x.name === name);
  const sandboxHint = who.isSandbox ? ` (a sandbox key may also send from any address at ${TEST_MAIL_DOMAIN})` : "";
  if (!d) throw forbidden(`from: ${name} is not a sending domain of this workspace; add it and verify it first${sandboxHint}`);
  if (!who.isSandbox && d.status !== "VERIFIED") {
    throw forbidden(`from: the sending domain ${name} is ${d.status}, not VERIFIED; publish its records and verify it first`);
  }
  return d;
}

/** local part delivered, bounced or complained (a `+label` may follow) at the test mail domain. */
function sandboxOutcome(address: string): Outcome {
  if (domainOf(address) !== TEST_MAIL_DOMAIN) return "delivered";
  const local = localPartOf(address).split("+")[0];
  return (OUTCOMES as readonly string[]).includes(local) ? (local as Outcome) : "delivered";
}

export function sendEmail(emu: Emu, who: Principal, ws: Workspace, msg: Message) {
  const domain = sendingDomain(emu, who, ws, msg.from.address);
  const suppressed = new Set(suppressionsOf(emu, ws).map((s) => s.address));
  const all = [...msg.to, ...msg.cc, ...msg.bcc].map((a) => a.address);
  const rejected = [...new Set(all.map((a) => a.toLowerCase()).filter((a) => suppressed.has(a)))].map((address) => ({ address, reason: "suppressed" as const }));
  const isSuppressed = (a: string) => suppressed.has(a.toLowerCase());
  // Without a primary recipient left, nothing is sent: cc and bcc alone are not a message.
  const toSend = msg.to.every((a) => isSuppressed(a.address)) ? [] : all.filter((a) => !isSuppressed(a));

  if (domain && !who.isSandbox && toSend.length) {
    const day = quotaDay(emu, domain)!;
    const used = sentSince(emu)(domain, day.startMs);
    if (used + toSend.length > day.quota) {
      throw forbidden(
        `from: the daily send quota of ${domain.name} is reached: ${used} of ${day.quota} recipients sent today, this message has ${toSend.length}; ` +
          `the quota resets at ${new Date(day.endMs).toISOString()}`,
      );
    }
  }

  const nowMs = emu.clock.now();
  const createdAt = emu.now();
  const send = sends(emu).insert({
    id: newId(), workspaceId: ws.id, keyId: who.key.id, sandbox: who.isSandbox, domainId: domain?.id ?? null,
    from: formatAddress(msg.from), to: msg.to.map(formatAddress), cc: msg.cc.map(formatAddress), bcc: msg.bcc.map(formatAddress),
    replyTo: msg.replyTo.map(formatAddress), subject: msg.subject, html: msg.html, text: msg.text, headers: msg.headers,
    attachments: msg.attachments, tags: msg.tags, recipients: toSend.length, rejected, createdAtMs: nowMs, createdAt,
  });
  const written = msg.to.map((a) =>
    records(emu).insert({
      id: newId(), sendId: send.id, workspaceId: ws.id, sandbox: who.isSandbox, to: a.address,
      outcome: isSuppressed(a.address) ? "rejected" : who.isSandbox ? sandboxOutcome(a.address) : "delivered",
      createdAtMs: nowMs, createdAt,
    }),
  );
  // A simulated bounce or complaint suppresses the address, as a real one would.
  if (who.isSandbox) {
    for (const a of toSend) {
      const outcome = sandboxOutcome(a);
      if (outcome !== "delivered" && !suppressed.has(a.toLowerCase())) {
        addSuppression(emu, ws, a, outcome === "bounced" ? "bounce" : "complaint");
        suppressed.add(a.toLowerCase());
      }
    }
  }
  logSend(emu, send, written);
  const first = written.find((r) => r.outcome !== "rejected") ?? written[0];
  return {
    id: first.id,
    status: first.outcome === "rejected" || who.isSandbox ? first.outcome : "queued",
    sandbox: who.isSandbox,
    ...(rejected.length ? { rejected } : {}),
  };
}

/**
 * Mail events for the log: each record accepted, with its status; a sandbox outcome at once; a real
 * record's sent and delivered when the clock reaches them (timers only while a log sink listens).
 * Addresses and ids only, never the content.
 */
function logSend(emu: Emu, send: EmailSend, written: EmailRecord[]): void {
  const event = (r: EmailRecord, status: string) => emu.log({
    kind: "mail", msg: `email ${r.id} to ${r.to}: ${status}${r.sandbox ? " (sandbox)" : ""}`,
    event: status, id: r.id, sendId: send.id, to: r.to, from: send.from, sandbox: r.sandbox,
  });
  for (const r of written) {
    if (r.sandbox || r.outcome === "rejected") {
      event(r, "accepted");
      event(r, r.outcome);
      continue;
    }
    event(r, "queued");
    if (!emu.logSink) continue;
    const sentIn = speedMs(emu, QUEUE_MS);
    setTimeout(() => event(r, "sent"), sentIn).unref();
    setTimeout(() => event(r, r.outcome), sentIn + speedMs(emu, DELIVER_MS)).unref();
  }
}

/** The body an idempotency key is checked against: without the key it may carry itself. */
export const withoutIdempotencyKey = (body: unknown) => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const { idempotency_key: _ignored, ...rest } = body as Record<string, unknown>;
  return rest;
};

/** The messages of a batch (POST /v1/emails/batch): a non-empty array of at most MAX_BATCH. */
export function batchMessages(body: unknown): unknown[] {
  if (!Array.isArray(body)) throw badRequest("body: must be a JSON array of messages");
  if (body.length === 0) throw badRequest("body: a batch needs at least one message");
  if (body.length > MAX_BATCH) throw badRequest(`body: a batch holds at most ${MAX_BATCH} messages; this one has ${body.length}`);
  return body;
}

// ---- read ----
/** queued -> sent -> the outcome, on the emulator clock; sandbox and rejected records are final at once. */
function eventsOf(emu: Emu, r: EmailRecord): { status: string; at: string }[] {
  const at = (ms: number) => new Date(ms).toISOString();
  if (r.sandbox || r.outcome === "rejected") return [{ status: r.outcome, at: r.createdAt }];
  const sentAt = r.createdAtMs + speedMs(emu, QUEUE_MS);
  const doneAt = sentAt + speedMs(emu, DELIVER_MS);
  const now = emu.clock.now();
  const out = [{ status: "queued", at: r.createdAt }];
  if (now >= sentAt) out.push({ status: "sent", at: at(sentAt) });
  if (now >= doneAt) out.push({ status: r.outcome, at: at(doneAt) });
  return out;
}

export const statusOf = (emu: Emu, r: EmailRecord) => eventsOf(emu, r).at(-1)!.status;

export function getEmail(emu: Emu, who: Principal, id: string): EmailRecord {
  const r = records(emu).get(id);
  if (!r || !who.canSee(r.workspaceId)) throw notFound("Email", id);
  return r;
}

/** The message record of §2.3 plus what the sender gave (from, subject, cc, tags...) and its events. */
export function recordView(emu: Emu, r: EmailRecord) {
  const s = sends(emu).get(r.sendId);
  const events = eventsOf(emu, r);
  const last = events.at(-1)!;
  return {
    id: r.id, status: last.status, sandbox: r.sandbox, to: r.to,
    from: s?.from ?? null, cc: s?.cc ?? [], bcc: s?.bcc ?? [], reply_to: s?.replyTo ?? [], subject: s?.subject ?? null, tags: s?.tags ?? {},
    created_at: r.createdAt, last_event: last.status, last_event_at: last.at, events,
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** `YYYY-MM-DD` (until covers that whole day, UTC) or an ISO 8601 date-time with a zone. */
export function timeBound(value: unknown, field: "since" | "until"): number | undefined {
  if (value === undefined || value === "") return undefined;
  const v = String(value);
  const ms = DATE.test(v) ? Date.parse(`${v}T00:00:00Z`) + (field === "until" ? 86_400_000 - 1 : 0) : DATE_TIME.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) throw badRequest(`${field}: must be a date YYYY-MM-DD or an ISO 8601 date-time such as 2026-01-31T12:00:00Z; got '${v}'`);
  return ms;
}

function positive(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  const v = String(value);
  if (!/^\d+$/.test(v) || Number(v) < 1) throw badRequest(`${field}: must be a positive integer; got '${v}'`);
  return Number(v);
}

/** GET /v1/emails: newest first, in the email page envelope. */
export function listEmails(emu: Emu, ws: Workspace, query: Record<string, unknown>) {
  const page = positive(query.page, "page", 1);
  const limit = Math.min(positive(query.limit, "limit", DEFAULT_PAGE), MAX_PAGE);
  const since = timeBound(query.since, "since");
  const until = timeBound(query.until, "until");
  const status = typeof query.status === "string" && query.status ? query.status.toLowerCase() : undefined;
  const to = typeof query.to === "string" && query.to ? query.to.trim().toLowerCase() : undefined;
  const rows = records(emu)
    .where((r) => r.workspaceId === ws.id && (!to || r.to.toLowerCase() === to))
    .filter((r) => (since === undefined || r.createdAtMs >= since) && (until === undefined || r.createdAtMs <= until))
    .filter((r) => !status || statusOf(emu, r) === status);
  // Newest send first; a send's records in the order of its `to`.
  const sendOrder = new Map(sends(emu).all().map((s, i) => [s.id, i]));
  const recordOrder = new Map(records(emu).all().map((r, i) => [r.id, i]));
  rows.sort((a, b) => b.createdAtMs - a.createdAtMs || sendOrder.get(b.sendId)! - sendOrder.get(a.sendId)! || recordOrder.get(a.id)! - recordOrder.get(b.id)!);
  const data = rows.slice((page - 1) * limit, page * limit).map((r) => recordView(emu, r));
  return { data, page, limit, total_count: rows.length, has_more: page * limit < rows.length };
}
