// DnsZone: a DNS zone the platform hosts (infrastructure routes §2.1, §4.1). It stays unpublished
// until ownership is proven; DnsZoneVerification waits for that. No route renames a zone, and
// names are held exclusively once published, so a new name replaces it, the old one going first.
import { z } from "zod";
import { defineFunction } from "../functions";
import { dnsZoneApi } from "../api/endpoints/dns";
import type { V1DnsZone } from "../api/dns";
import { checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, findShared, isUnknown } from "./framework";
import { id } from "./rules";

/** Where to point a domain: the spec does not list the platform's nameservers. */
export const PLATFORM_HINT = "the nameservers the platform shows for the zone";

// ---- schemas ----
export const DOMAIN_RULE = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z][a-z0-9-]{0,62}$/;
/** Domain and zone names compare without case, surrounding space or the trailing dot. */
export const normaliseDomain = (name: string) => name.trim().toLowerCase().replace(/\.$/, "");

export const domainInput = (what: string) =>
  z
    .string({ error: "must be a string" })
    .transform(normaliseDomain)
    .refine((s) => DOMAIN_RULE.test(s), "must be a domain name such as example.com (letters, digits and '-', at least two labels)")
    .describe(what);

export const dnsZoneInputs = z.object({
  name: domainInput("The zone's domain name, e.g. example.com. Case and a trailing dot are ignored. Changing it replaces the zone."),
  workspaceId: id("Workspace to create the zone in. Defaults to cloudplatform:workspaceId, or the only workspace the key reaches. Changing it replaces the zone.").optional(),
});
export type DnsZoneInputs = z.infer<typeof dnsZoneInputs>;

export const verificationRecordOutput = z
  .object({
    host: z.string().describe("Host relative to the domain."),
    name: z.string().describe("Fully-qualified name."),
    type: z.string().describe("Always TXT."),
    value: z.string().describe("Exact TXT value."),
  })
  .describe("The TXT record that proves ownership; null once proven.")
  .meta({ typeName: "DnsZoneVerificationRecord" });

export const dnsZoneOutputs = z.object({
  name: z.string().describe("The zone's domain name."),
  workspaceId: z.string().describe("Workspace that owns the zone (the API's teamId)."),
  published: z.boolean().describe("True once ownership is proven and the platform serves the zone."),
  publishedAt: z.string().nullable().describe("When the zone was published."),
  verifiedAt: z.string().nullable().describe("When ownership was proven."),
  verificationMethod: z.string().nullable().describe("How ownership was proven (LEGACY, NS, PURCHASE, TXT); null while pending."),
  verificationRecord: verificationRecordOutput.nullable(),
  lastError: z.string().nullable().describe("Why the last verification did not succeed."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
  updatedAt: z.string().nullable().describe("Last change (ISO 8601)."),
});
export type DnsZoneOutputs = z.infer<typeof dnsZoneOutputs>;

const DIFF = { replace: ["name", "workspaceId"], defaulted: ["workspaceId"], deleteBeforeReplace: true };

export const DnsZone = defineResource<DnsZoneInputs, DnsZoneOutputs>({
  token: "cloudplatform:index:DnsZone",
  description: "A DNS zone hosted by the platform. It is published once ownership is proven (see DnsZoneVerification).",
  inputs: dnsZoneInputs,
  outputs: dnsZoneOutputs,
  deleteBeforeReplace: true,
  importId: { format: "<zoneId>", note: "The zone is looked up in the configured workspace." },
  inputsOf,

  // ---- check ----
  check: (_olds, news) => checkWith(dnsZoneInputs, news),

  // ---- diff ----
  diff: (_id, olds, news) => diffWith(olds, news, DIFF),

  // ---- create ----
  async create(ctx, inputs) {
    const workspaceId = inputs.workspaceId ?? (await ctx.workspaceId());
    const zone = await dnsZoneApi.create(ctx.client, workspaceId, { name: inputs.name }, {
      own: true, exists: async (made) => !!(await findZone(ctx, made.id, workspaceId, { fresh: true })),
    });
    return { id: zone.id, outs: toOutputs(zone, workspaceId) };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const ws = olds.workspaceId || (await ctx.workspaceId());
    const zone = await findZone(ctx, id, ws);
    if (!zone) return {};
    const outs = toOutputs(zone, ws);
    return { id, props: outs, inputs: inputsOf(outs) };
  },

  // ---- delete ----
  async delete(ctx, id) {
    await deleteIgnoringNotFound(() => dnsZoneApi.delete(ctx.client, id));
  },
});

// ---- finders ----
/**
 * No route reads one zone: the workspace's list (the configured workspace unless given) is searched,
 * in a walk reads share (a refresh of 200 zones walked pages of 100 once per zone: 300 list calls).
 */
export async function findZone(ctx: Context, zoneId: string, workspaceId?: string, opts: { fresh?: boolean } = {}): Promise<V1DnsZone | undefined> {
  const ws = workspaceId && !isUnknown(workspaceId) ? workspaceId : await ctx.workspaceId();
  return findShared(ctx, `dns-zones\n${ws}`, () => dnsZoneApi.list(ctx.client, ws), (z) => z.id === zoneId, opts);
}

export async function findZoneByName(ctx: Context, name: string, workspaceId?: string): Promise<V1DnsZone | undefined> {
  const wanted = normaliseDomain(name);
  const ws = workspaceId ?? (await ctx.workspaceId());
  const all = await dnsZoneApi.list(ctx.client, ws);
  // A published zone wins over a pending one of the same name.
  return all.filter((z) => normaliseDomain(z.name) === wanted).sort((a, b) => Number(b.published) - Number(a.published))[0];
}

// ---- mappers ----
export function toOutputs(z: V1DnsZone, workspaceId?: string): DnsZoneOutputs {
  const v = z.verificationRecord;
  return {
    name: z.name,
    workspaceId: z.teamId ?? z.workspaceId ?? workspaceId ?? "",
    published: z.published,
    publishedAt: z.publishedAt ?? null,
    verifiedAt: z.verifiedAt ?? null,
    verificationMethod: z.verificationMethod ?? null,
    verificationRecord: v ? { host: v.host, name: v.name, type: v.type, value: v.value } : null,
    lastError: z.lastError ?? null,
    createdAt: z.createdAt ?? null,
    updatedAt: z.updatedAt ?? null,
  };
}

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: DnsZoneOutputs): DnsZoneInputs {
  return ({ name: o.name });
}

// ---- functions ----
export const getDnsZone = defineFunction<{ name: string; workspaceId?: string }>("getDnsZone", {
  token: "cloudplatform:index:getDnsZone",
  description: "Looks up a platform DNS zone by name: its id, whether it is published, and how to verify it.",
  inputs: z.object({
    name: z.string().describe("The zone's domain name, e.g. example.com."),
    workspaceId: z.string().describe("Defaults to cloudplatform:workspaceId, or the only workspace the key reaches.").optional(),
  }),
  outputs: dnsZoneOutputs.extend({ id: z.string().describe("The zone's id.") }),
  async invoke(ctx, args) {
    const ws = args.workspaceId ?? (await ctx.workspaceId());
    const zone = await findZoneByName(ctx, args.name, ws);
    if (!zone) throw new Error(`getDnsZone: no DNS zone named ${args.name} in workspace ${ws}`);
    return { id: zone.id, ...toOutputs(zone, ws) };
  },
});
