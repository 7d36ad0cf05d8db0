// Idempotency-Key on creating routes: a retry with the same key and body within 24 hours replays
// the first response and acts once. The same key with another body is refused with 409, and so
// is a retry that arrives while the first request is still being handled.
import { createHash } from "node:crypto";
import type { Emu } from "./emu";
import { badRequest, conflict } from "./errors";
import type { Reply } from "./http";

const RETENTION_MS = 24 * 60 * 60 * 1000;
const KEY_RULE = /^[\x21-\x7e]{1,255}$/;

interface Entry {
  id: string;
  bodyHash: string;
  createdAtMs: number;
  reply?: Reply;
}

export function idempotencyKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers["idempotency-key"];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined) return undefined;
  if (!KEY_RULE.test(key)) throw badRequest("Idempotency-Key: must be 1 to 255 printable characters");
  return key;
}

/** Runs `act` at most once per (credential, route, key); later calls replay its reply. */
export async function withIdempotency(
  emu: Emu,
  scope: string,
  key: string,
  body: unknown,
  act: () => Promise<Reply>,
): Promise<{ reply: Reply; replayed: boolean }> {
  const table = emu.store.table<Entry>("idempotency");
  const id = createHash("sha256").update(`${scope}\n${key}`).digest("hex");
  const bodyHash = createHash("sha256").update(JSON.stringify(body ?? null)).digest("hex");
  const now = emu.clock.now();
  forgetExpired(emu, now);
  const existing = table.get(id);
  if (existing && now - existing.createdAtMs < RETENTION_MS) {
    if (existing.bodyHash !== bodyHash) {
      throw conflict("Idempotency-Key was already used with a different request body; use a new key for a new request");
    }
    if (!existing.reply) throw conflict("A request with this Idempotency-Key is still in progress; retry later");
    return { reply: existing.reply, replayed: true };
  }
  table.insert({ id, bodyHash, createdAtMs: now });
  try {
    const reply = await act();
    // Server errors are not remembered, so a retry can still succeed.
    if (reply.status < 500) table.update(id, { reply });
    else table.delete(id);
    return { reply, replayed: false };
  } catch (err) {
    const status = (err as { statusCode?: number }).statusCode;
    if (typeof status === "number" && status < 500) {
      const e = err as { body?: () => unknown };
      table.update(id, { reply: { status, body: e.body?.() } });
    } else {
      table.delete(id);
    }
    throw err;
  }
}

/** Entries oldest first, so the expired ones are found without a scan. */
const byAge = (emu: Emu) => emu.store.table<Entry>("idempotency").index("age", { group: () => "all", place: (e) => e.createdAtMs });

/** Drops entries past their 24 hours, oldest first: a few at each keyed request, so the table holds a day of replies, not every reply ever made. */
function forgetExpired(emu: Emu, now: number): void {
  const expired: string[] = [];
  for (const e of byAge(emu).rows("all")) {
    if (now - e.createdAtMs < RETENTION_MS || expired.length === 64) break;
    expired.push(e.id);
  }
  for (const id of expired) emu.store.table<Entry>("idempotency").delete(id);
}

/** `withIdempotency` as a reply: a replay carries the header `idempotent-replayed: true`. */
export async function replyOnce(emu: Emu, scope: string, key: string, body: unknown, act: () => Promise<Reply>): Promise<Reply> {
  const { reply, replayed } = await withIdempotency(emu, scope, key, body, act);
  return replayed ? { ...reply, headers: { ...reply.headers, "idempotent-replayed": "true" } } : reply;
}
