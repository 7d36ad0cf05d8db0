// Response shapes of the DNS zone and record routes (infrastructure routes §2.1). Loose objects:
// unknown fields are kept, and enumerations are open.
import { z } from "zod";

export const V1DnsZoneVerificationRecord = z.looseObject({
  host: z.string(),
  name: z.string(),
  type: z.string().default("TXT"),
  value: z.string(),
});
export type V1DnsZoneVerificationRecord = z.infer<typeof V1DnsZoneVerificationRecord>;

export const V1DnsZone = z.looseObject({
  id: z.string(),
  // The spec names the owner teamId; workspaceId is accepted too.
  teamId: z.string().nullish(),
  workspaceId: z.string().nullish(),
  name: z.string(),
  published: z.boolean().default(false),
  publishedAt: z.string().nullish(),
  verifiedAt: z.string().nullish(),
  verificationMethod: z.string().nullish(),
  verificationRecord: V1DnsZoneVerificationRecord.nullish(),
  lastError: z.string().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type V1DnsZone = z.infer<typeof V1DnsZone>;

export const V1DnsRecord = z.looseObject({
  id: z.string(),
  zoneId: z.string().nullish(),
  name: z.string(),
  type: z.string(),
  content: z.string(),
  ttl: z.number().nullish(),
  priority: z.number().nullish(),
  origin: z.string().nullish(),
  editable: z.boolean().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type V1DnsRecord = z.infer<typeof V1DnsRecord>;
