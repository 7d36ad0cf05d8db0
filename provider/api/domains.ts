// Response shapes of the custom domain and preview routes (infrastructure routes §2.6, §4.9).
// Loose objects: unknown fields are kept, and enumerations are open. The create and verify
// responses are "not shown": a V1CustomDomain is expected, and one wrapped as `{customDomain}` or
// `{domain: {...}}` is accepted too.
import { z } from "zod";
import { V1DnsRecord } from "./dns";

/** A record to create or in conflict; `id` is optional here, as a record still to be made has none. */
export const V1TargetRecord = V1DnsRecord.extend({ id: z.string().nullish(), fqdn: z.string().nullish() });
export type V1TargetRecord = z.infer<typeof V1TargetRecord>;

export const V1DnsTarget = z.looseObject({
  cname: z.string().nullish(),
  aRecord: z.string().nullish(),
  isApex: z.boolean().default(false),
  records: z.array(V1TargetRecord).default([]),
  conflicts: z.array(V1TargetRecord).default([]),
});
export type V1DnsTarget = z.infer<typeof V1DnsTarget>;

export const V1CustomDomain = z.looseObject({
  id: z.string(),
  serviceId: z.string().nullish(),
  domain: z.string(),
  status: z.string().default("PENDING"),
  lastCheck: z.string().nullish(),
  dnsTarget: V1DnsTarget.default({ isApex: false, records: [], conflicts: [] }),
  verifiedAt: z.string().nullish(),
  createdAt: z.string().nullish(),
});
export type V1CustomDomain = z.infer<typeof V1CustomDomain>;

export const CustomDomainResponse = z.unknown().transform((raw, ctx): V1CustomDomain => {
  const o = (raw ?? {}) as Record<string, unknown>;
  const inner = o.customDomain ?? (o.domain && typeof o.domain === "object" ? o.domain : o);
  const r = V1CustomDomain.safeParse(inner);
  if (!r.success) {
    for (const issue of r.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  }
  return r.data;
});

export const V1PrPreview = z.looseObject({
  id: z.string(),
  projectId: z.string().nullish(),
  sourceServiceId: z.string().nullish(),
  repoFullName: z.string().nullish(),
  prNumber: z.number(),
  headRef: z.string().nullish(),
  baseRef: z.string().nullish(),
  headSha: z.string().nullish(),
  authorLogin: z.string().nullish(),
  title: z.string().nullish(),
  status: z.string(),
  error: z.string().nullish(),
  url: z.string().nullish(),
  environmentId: z.string().nullish(),
  lastDeploymentId: z.string().nullish(),
  previewWebServiceId: z.string().nullish(),
  previewPostgresServiceId: z.string().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type V1PrPreview = z.infer<typeof V1PrPreview>;
