// The outbox (control API, tests only): every message the emulator accepted, sandbox or not, with
// its full content, so an app's own tests can assert what it sent. Also clears the outbox and the
// suppressions a test's sends left behind (complaint suppressions cannot be deleted through the API).
import { z } from "zod";
import type { Emu } from "../emu";
import { type EmailRecord, records, recordView, sends, timeBound } from "./emails";

export function outboxView(emu: Emu, r: EmailRecord) {
  const s = sends(emu).get(r.sendId);
  return {
    ...recordView(emu, r),
    workspaceId: r.workspaceId,
    sendId: r.sendId,
    html: s?.html ?? null,
    text: s?.text ?? null,
    headers: s?.headers ?? {},
    attachments: s?.attachments ?? [],
    rejected: s?.rejected ?? [],
  };
}

export const outboxQuery = z.strictObject({
  to: z.string().optional(),
  since: z.string().optional(),
  workspaceId: z.string().optional(),
  sandbox: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
});

/** Oldest first; `to` matches the record's recipient or one of its cc/bcc, case-insensitively. */
export function outbox(emu: Emu, q: z.infer<typeof outboxQuery>) {
  const since = timeBound(q.since, "since");
  const to = q.to?.trim().toLowerCase();
  const data = records(emu)
    .where((r) => (!q.workspaceId || r.workspaceId === q.workspaceId) && (!q.sandbox || String(r.sandbox) === q.sandbox))
    .filter((r) => since === undefined || r.createdAtMs >= since)
    .sort((a, b) => a.createdAtMs - b.createdAtMs)
    .map((r) => outboxView(emu, r))
    .filter((m) => !to || [m.to, ...m.cc, ...m.bcc].some((a) => a.toLowerCase() === to || a.toLowerCase().endsWith(`<${to}>`)));
  return { data };
}

/** Forgets every message sent, sandbox or not. */
export function clearOutbox(emu: Emu): void {
  for (const r of records(emu).all()) records(emu).delete(r.id);
  for (const s of sends(emu).all()) sends(emu).delete(s.id);
}
