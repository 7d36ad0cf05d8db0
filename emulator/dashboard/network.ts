// Dashboard views of DNS zones and records, mail sending domains with their verification state,
// suppressions, and the email outbox.
import type { Emu } from "../emu";
import { notFound } from "../errors";
import { recordsOf, recordView, zonesOf, zoneView } from "../models/dns";
import { zoneRows } from "../models/dns-records";
import { outboxView } from "../models/email-outbox";
import { type EmailRecord, records, recordView as emailView } from "../models/emails";
import { domainsOf, domainView, recordsFor, suppressionsOf, suppressionView, zoneOf } from "../models/mail";
import { workspaceOf } from "./lookup";

/** How many messages the mail page lists, newest first. */
const OUTBOX_PAGE = 200;

export function dnsOfWorkspace(emu: Emu, workspaceId: string) {
  const ws = workspaceOf(emu, workspaceId);
  return {
    workspaceId: ws.id,
    zones: zonesOf(emu, ws.id)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((z) => ({ ...zoneView(z), records: recordsOf(emu, z.id).map(recordView) })),
  };
}

export function zonePage(emu: Emu, id: string) {
  const z = zoneRows(emu).get(id);
  if (!z) throw notFound("DNS zone", id);
  return { workspaceId: z.teamId, zone: zoneView(z), records: recordsOf(emu, z.id).map(recordView) };
}

/** One outbox line: who, what, and where delivery stands. */
export function outboxRow(emu: Emu, r: EmailRecord) {
  const v = emailView(emu, r);
  return { id: v.id, from: v.from, to: v.to, subject: v.subject, status: v.status, sandbox: v.sandbox, createdAt: v.created_at };
}

/** A workspace's sent emails, newest first. */
export const sentBy = (emu: Emu, workspaceId: string): EmailRecord[] =>
  records(emu).where((r) => r.workspaceId === workspaceId).sort((a, b) => b.createdAtMs - a.createdAtMs);

export function mailOfWorkspace(emu: Emu, workspaceId: string) {
  const ws = workspaceOf(emu, workspaceId);
  const sent = sentBy(emu, ws.id);
  return {
    workspaceId: ws.id,
    domains: domainsOf(emu, ws).map((d) => ({ ...domainView(d), records: recordsFor(emu, d), zone: zoneOf(emu, d) })),
    suppressions: suppressionsOf(emu, ws).map(suppressionView),
    outbox: sent.slice(0, OUTBOX_PAGE).map((r) => outboxRow(emu, r)),
    outboxTotal: sent.length,
  };
}

/** A message as sent, with its delivery events; attachments by name and size only. */
export function emailPage(emu: Emu, id: string) {
  const r = records(emu).get(id);
  if (!r) throw notFound("Email", id);
  const v = outboxView(emu, r);
  return {
    workspaceId: r.workspaceId,
    email: { ...v, attachments: v.attachments.map((a) => ({ filename: a.filename, contentType: a.content_type, size: a.size })) },
  };
}
