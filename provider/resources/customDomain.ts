// CustomDomain: a domain attached to a web service (infrastructure routes §2.6, §4.9). Its dnsTarget
// says which record to publish and which existing records are in the way. No route moves a domain
// or renames it, so either change replaces it; a domain is held by one service at a time, so moving
// the same domain to another service deletes the old attachment first.
import { z } from "zod";
import type { V1CustomDomain, V1TargetRecord } from "../api/domains";
import { customDomainApi } from "../api/endpoints/domains";
import { defineFunction } from "../functions";
import { DOMAIN_RULE, normaliseDomain } from "./dnsZone";
import { checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, findShared, same, splitFirst, statePart } from "./framework";
import { id } from "./rules";

// ---- schemas ----
/** A bare host name: a scheme, port or path gets its own message; case and a trailing dot are ignored. */
export const customDomainName = z
  .string({ error: "must be a string" })
  .superRefine((raw, ctx) => {
    const s = raw.trim();
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) ctx.addIssue({ code: "custom", message: `'${raw}' must be a bare domain name without a scheme (drop '${s.split("://")[0]}://')` });
    else if (/[/?#]/.test(s)) ctx.addIssue({ code: "custom", message: `'${raw}' must be a bare domain name without a path or query` });
    else if (/:\d*$/.test(s)) ctx.addIssue({ code: "custom", message: `'${raw}' must be a bare domain name without a port` });
    else if (!DOMAIN_RULE.test(normaliseDomain(s))) ctx.addIssue({ code: "custom", message: `'${raw}' is not a valid domain name (labels of letters, digits and '-', at least two, e.g. www.example.com)` });
  })
  .transform(normaliseDomain)
  .describe("The domain, e.g. www.example.com or example.com. Case and a trailing dot are ignored. Changing it replaces the custom domain.");

export const customDomainInputs = z.object({
  serviceId: id("The web service (WEB or STATIC) the domain serves. Changing it replaces the custom domain (the old attachment is removed first when the domain stays the same)."),
  domain: customDomainName,
});
export type CustomDomainInputs = z.infer<typeof customDomainInputs>;

export const targetRecordOutput = z.object({
  id: z.string().nullable().describe("The record's id, when it exists in a platform zone."),
  zoneId: z.string().nullable().describe("The platform zone holding it; null for a record elsewhere (public DNS) or still to be made."),
  name: z.string().describe("The name as the platform gives it ('@' or relative to the zone, else the full name)."),
  fqdn: z.string().describe("The record's full name."),
  type: z.string().describe("Record type (CNAME, A, ...)."),
  content: z.string().describe("The record's value."),
  ttl: z.number().nullable().describe("Time to live in seconds."),
  priority: z.number().nullable().describe("Priority (MX, SRV)."),
}).meta({ typeName: "CustomDomainDnsRecord" });
export type TargetRecordOutput = z.infer<typeof targetRecordOutput>;

export const dnsTargetOutput = z.object({
  cname: z.string().nullable().describe("The host a subdomain's CNAME points at (the service's host)."),
  aRecord: z.string().nullable().describe("The IPv4 address an apex domain's A record points at."),
  isApex: z.boolean().describe("True for an apex domain, which cannot use a CNAME."),
  records: z.array(targetRecordOutput).describe("The records to create."),
  conflicts: z.array(targetRecordOutput).describe("Existing records that block verification and must be removed."),
}).describe("What to publish for the domain, and what is in the way.").meta({ typeName: "CustomDomainDnsTarget" });
export type DnsTargetOutput = z.infer<typeof dnsTargetOutput>;

export const customDomainOutputs = z.object({
  serviceId: z.string().describe("The service the domain serves."),
  domain: z.string().describe("The domain."),
  status: z.string().describe("PENDING or ACTIVE (the set is open)."),
  dnsTarget: dnsTargetOutput,
  lastCheck: z.string().nullable().describe("What the last DNS check found, against what was expected."),
  verifiedAt: z.string().nullable().describe("When the domain became ACTIVE."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
});
export type CustomDomainOutputs = z.infer<typeof customDomainOutputs>;

export const CustomDomain = defineResource<CustomDomainInputs, CustomDomainOutputs>({
  token: "cloudplatform:index:CustomDomain",
  description: "A custom domain on a web service (WEB or STATIC). Publish dnsTarget.records (or use VerifiedCustomDomain), then wait with CustomDomainVerification.",
  inputs: customDomainInputs,
  outputs: customDomainOutputs,
  deleteBeforeReplace: true,
  importId: { format: "<serviceId>/<domainId>", note: "The resource's id in state is the custom domain's id." },
  inputsOf,

  // ---- check ----
  check: (_olds, news) => checkWith(customDomainInputs, news),

  // ---- diff ----
  diff(_id, olds, news) {
    const d = diffWith(olds, news, { replace: ["serviceId", "domain"] });
    return { ...d, deleteBeforeReplace: (d.replaces?.length ?? 0) > 0 && same(olds.domain, news.domain) };
  },

  // ---- create ----
  async create(ctx, inputs) {
    const d = await customDomainApi.create(ctx.client, inputs.serviceId, { domain: inputs.domain }, {
      own: true, exists: async (made) => !!(await findCustomDomain(ctx, inputs.serviceId, made.id, { fresh: true })),
    });
    const outs = toOutputs(d, inputs.serviceId);
    ctx.log(`custom domain ${outs.domain}: attached (${outs.status}); publish ${describeRecords(outs.dnsTarget.records)}`);
    return { id: d.id, outs };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const [fromId, domainId] = splitFirst(id);
    const serviceId = olds.serviceId || fromId;
    if (!serviceId) throw new Error(`CustomDomain '${id}': the state names no service; import it as <serviceId>/<domainId>`);
    const d = await findCustomDomain(ctx, serviceId, domainId);
    if (!d) return {};
    const outs = toOutputs(d, serviceId);
    return { id: domainId, props: outs, inputs: inputsOf(outs) };
  },

  // ---- delete ----
  async delete(ctx, id) {
    await deleteIgnoringNotFound(() => customDomainApi.delete(ctx.client, statePart(splitFirst(id)[1], "custom domain id")));
  },
});

// ---- finders ----
/** No route reads one domain: the service's list is searched, in a walk reads share. Undefined when the domain or its service is gone. */
export function findCustomDomain(ctx: Context, serviceId: string, id: string, opts: { fresh?: boolean } = {}): Promise<V1CustomDomain | undefined> {
  return findShared(ctx, `custom-domains\n${serviceId}`, () => listCustomDomains(ctx, serviceId), (d) => d.id === id, opts);
}

export function listCustomDomains(ctx: Context, serviceId: string): Promise<V1CustomDomain[]> {
  return customDomainApi.list(ctx.client, serviceId);
}

// ---- mappers ----
function recordOutput(r: V1TargetRecord, domain: string): TargetRecordOutput {
  const type = r.type.trim().toUpperCase();
  const hostLike = type === "CNAME" || type === "ALIAS" || type === "MX" || type === "NS";
  return {
    id: r.id ?? null,
    zoneId: r.zoneId ?? null,
    name: r.name,
    // Every record of a custom domain lives at the domain itself.
    fqdn: normaliseDomain(r.fqdn ?? domain),
    type,
    content: hostLike ? normaliseDomain(r.content) : r.content.trim(),
    ttl: r.ttl ?? null,
    priority: r.priority ?? null,
  };
}

export function toOutputs(d: V1CustomDomain, serviceId: string): CustomDomainOutputs {
  const domain = normaliseDomain(d.domain);
  const t = d.dnsTarget;
  return {
    serviceId: d.serviceId ?? serviceId,
    domain,
    status: d.status,
    dnsTarget: {
      cname: t.cname ? normaliseDomain(t.cname) : null,
      aRecord: t.aRecord ?? null,
      isApex: t.isApex,
      records: t.records.map((r) => recordOutput(r, domain)),
      conflicts: t.conflicts.map((r) => recordOutput(r, domain)),
    },
    lastCheck: d.lastCheck ?? null,
    verifiedAt: d.verifiedAt ?? null,
    createdAt: d.createdAt ?? null,
  };
}

export const describeRecord = (r: TargetRecordOutput) => `${r.type} ${r.fqdn} -> ${r.content}`;
const describeRecords = (rs: TargetRecordOutput[]) => rs.map(describeRecord).join(", ") || "nothing";

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: CustomDomainOutputs): CustomDomainInputs {
  return ({ serviceId: o.serviceId, domain: o.domain });
}

// ---- functions ----
export const getCustomDomains = defineFunction<{ serviceId: string }>("getCustomDomains", {
  token: "cloudplatform:index:getCustomDomains",
  description: "The custom domains of a service, oldest first: each with its status, DNS target, conflicts and last check.",
  inputs: z.object({ serviceId: id("The service's id.") }),
  outputs: z.object({
    domains: z.array(customDomainOutputs.extend({ id: z.string().describe("The custom domain's id.") }).meta({ typeName: "CustomDomainInfo" }))
      .describe("The service's custom domains, oldest first."),
  }),
  async invoke(ctx, args) {
    const all = await listCustomDomains(ctx, args.serviceId);
    return { domains: all.map((d) => ({ id: d.id, ...toOutputs(d, args.serviceId) })) };
  },
});
