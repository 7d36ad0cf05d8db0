// Response shapes of the mail domain and suppression routes (conventions §2.6-2.7, §4.8-4.9).
// The domain routes' bodies are "not shown": the detail `{domain, records, zone, ...}` is expected,
// and a flat domain carrying `records` is accepted too (`toDetail`).
import { z } from "zod";

export const V1MailDnsRecord = z.looseObject({
  name: z.string().nullish(),
  type: z.string(),
  host: z.string().nullish(),
  fqdn: z.string(),
  zoneHost: z.string().nullish(),
  value: z.string(),
  priority: z.number().nullish(),
  required: z.boolean().default(true),
  verified: z.boolean().nullish(),
  problem: z.string().nullish(),
});
export type V1MailDnsRecord = z.infer<typeof V1MailDnsRecord>;

export const V1MailDnsZone = z.looseObject({
  name: z.string(),
  dnsZoneId: z.string().nullish(),
  hostedOnPlatform: z.boolean().default(false),
});
export type V1MailDnsZone = z.infer<typeof V1MailDnsZone>;

export const V1MailDomain = z.looseObject({
  id: z.string(),
  name: z.string(),
  region: z.string().nullish(),
  status: z.string(),
  dailyQuota: z.number().nullish(),
  dkimPublicKey: z.string().nullish(),
  failingRecords: z.array(z.string()).nullish(),
  lastCheckedAt: z.string().nullish(),
  verifiedAt: z.string().nullish(),
  suspendedAt: z.string().nullish(),
  suspendedReason: z.string().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type V1MailDomain = z.infer<typeof V1MailDomain>;

export const V1MailDomainDetail = z.object({
  domain: V1MailDomain,
  records: z.array(V1MailDnsRecord).default([]),
  zone: V1MailDnsZone.nullish(),
  propagating: z.boolean().nullish(),
  alignmentWarning: z.string().nullish(),
});
export type V1MailDomainDetail = z.infer<typeof V1MailDomainDetail>;

/** Accepts the detail, or a flat domain with its records and zone alongside. */
export const MailDomainResponse = z.unknown().transform((raw, ctx): V1MailDomainDetail => {
  const o = (raw ?? {}) as Record<string, unknown>;
  const shaped = o.domain && typeof o.domain === "object" ? o : { domain: o, records: o.records, zone: o.zone, propagating: o.propagating, alignmentWarning: o.alignmentWarning };
  const r = V1MailDomainDetail.safeParse(shaped);
  if (!r.success) {
    for (const issue of r.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  }
  return r.data;
});

export const V1Suppression = z.looseObject({
  id: z.string().nullish(),
  address: z.string(),
  reason: z.string().nullish(),
  createdAt: z.string().nullish(),
});
export type V1Suppression = z.infer<typeof V1Suppression>;

// GET /v1/limits (conventions §4.7): field names are "not shown". The emulator answers snake_case
// (docs/api-assumptions.md); camelCase spellings are read too.
const count = z.number().nullish();
export const V1MailDomainQuota = z.looseObject({
  id: z.string().nullish(),
  name: z.string(),
  status: z.string().nullish(),
  daily_quota: count, dailyQuota: count,
  sent_today: count, sentToday: count,
  remaining_today: count, remainingToday: count,
  max_daily_quota: count, maxDailyQuota: count,
  quota_resets_at: z.string().nullish(), quotaResetsAt: z.string().nullish(),
});
export const V1MailLimits = z.looseObject({
  sandbox: z.boolean().nullish(),
  limits: z.record(z.string(), z.unknown()).nullish(),
  rate_limit: z.record(z.string(), z.unknown()).nullish(),
  rateLimit: z.record(z.string(), z.unknown()).nullish(),
  domains: z.array(V1MailDomainQuota).default([]),
});
export type V1MailLimits = z.infer<typeof V1MailLimits>;
