// The send rate per key (3,000 requests a minute, a sliding window on the emulator clock) and the
// limits report of GET /v1/limits (conventions §4.7, §8). The window lives in memory only: it
// restarts with the emulator and on /_emulator/reset.
import type { Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { tooManyRequests } from "../errors";
import { MAX_DAILY_QUOTA, domainsOf, quotaDay, type MailDomain } from "./mail";
import { MAX_HEADERS, MAX_MESSAGE_BYTES, MAX_RECIPIENTS, MAX_TAG_KEY, MAX_TAG_VALUE, MAX_TAGS } from "./email-message";

export const SEND_RATE_PER_MINUTE = 3_000;
export const MAX_BATCH = 100;
export const MAX_PAGE = 100;
export const DEFAULT_PAGE = 20;
const WINDOW_MS = 60_000;

const windows = new WeakMap<Emu, Map<string, number[]>>();

function windowOf(emu: Emu, keyId: string): number[] {
  let all = windows.get(emu);
  if (!all) {
    all = new Map();
    windows.set(emu, all);
    emu.on("reset", () => all!.clear());
  }
  const now = emu.clock.now();
  const recent = (all.get(keyId) ?? []).filter((t) => t > now - WINDOW_MS);
  all.set(keyId, recent);
  return recent;
}

/** The per-key limit: --send-rate lowers it for tests. */
export const sendRate = (emu: Emu) => emu.settings.sendRatePerMinute ?? SEND_RATE_PER_MINUTE;

/** Counts one send request, or answers 429 with Retry-After (seconds until a slot frees). */
export function takeSendSlot(emu: Emu, keyId: string): void {
  const recent = windowOf(emu, keyId);
  const now = emu.clock.now();
  if (recent.length >= sendRate(emu)) {
    const wait = Math.max(1, Math.ceil((recent[0] + WINDOW_MS - now) / 1000));
    throw tooManyRequests(String(wait));
  }
  recent.push(now);
}

/** Recipients a domain has sent to in its current quota day, from the sends recorded by the emails model. */
export type SentToday = (d: MailDomain, sinceMs: number) => number;

export function domainQuotaView(emu: Emu, d: MailDomain, sentSince: SentToday) {
  const day = d.status === "VERIFIED" ? quotaDay(emu, d) : undefined;
  const sent = day ? sentSince(d, day.startMs) : 0;
  return {
    id: d.id,
    name: d.name,
    status: d.status,
    daily_quota: day?.quota ?? 0,
    sent_today: sent,
    remaining_today: day ? Math.max(0, day.quota - sent) : 0,
    max_daily_quota: MAX_DAILY_QUOTA,
    quota_resets_at: day ? new Date(day.endMs).toISOString() : null,
  };
}

/** GET /v1/limits: the static limits, the caller's rate window and each sending domain's quota. */
export function limitsView(emu: Emu, who: Principal, ws: Workspace, sentSince: SentToday) {
  const recent = windowOf(emu, who.key.id);
  const rate = sendRate(emu);
  return {
    sandbox: who.isSandbox,
    limits: {
      recipients_per_message: MAX_RECIPIENTS,
      message_size_bytes: MAX_MESSAGE_BYTES,
      headers_per_message: MAX_HEADERS,
      tags_per_message: MAX_TAGS,
      tag_key_max_length: MAX_TAG_KEY,
      tag_value_max_length: MAX_TAG_VALUE,
      messages_per_batch: MAX_BATCH,
      page_size_max: MAX_PAGE,
      page_size_default: DEFAULT_PAGE,
    },
    rate_limit: {
      requests_per_minute: rate,
      used: recent.length,
      remaining: Math.max(0, rate - recent.length),
      resets_at: recent.length ? new Date(recent[0] + WINDOW_MS).toISOString() : null,
    },
    domains: domainsOf(emu, ws).map((d) => domainQuotaView(emu, d, sentSince)),
  };
}
