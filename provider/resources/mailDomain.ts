// MailDomain: a sending domain (conventions §2.6, §4.9). Adding it generates the DKIM key; its
// records output lists what to publish, in a stable order. No route renames a domain or moves its
// region, and names are unique, so either change replaces it with the old one deleted first.
import { z } from "zod";
import { defineFunction } from "../functions";
import { type MailDomainCreateBody, mailDomainApi } from "../api/endpoints/mail";
import type { V1MailDnsRecord, V1MailDomainDetail } from "../api/mail";
import { domainInput, normaliseDomain } from "./dnsZone";
import { checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, findOrUndefined, splitFirst, statePart, workspaceOf } from "./framework";
import { id, regionKey } from "./rules";

// ---- schemas ----
export const mailDomainInputs = z.object({
  name: domainInput("The sending domain, e.g. mail.example.com. Case and a trailing dot are ignored. Changing it replaces the domain (the old one is deleted first)."),
  region: regionKey.describe("Region the domain sends from. Defaults to the workspace's. Changing it replaces the domain.").optional(),
  workspaceId: id("Workspace to add the domain to. Defaults to cloudplatform:workspaceId, or the only workspace the key reaches. Changing it replaces the domain.").optional(),
});
export type MailDomainInputs = z.infer<typeof mailDomainInputs>;

export const mailRecordOutput = z.object({
  name: z.string().nullable().describe("What the record is for: DKIM, SPF, MX or DMARC."),
  type: z.string().describe("DNS record type (TXT, MX)."),
  host: z.string().nullable().describe("Host relative to the sending domain; '@' is the domain itself."),
  fqdn: z.string().describe("Full name the record must exist at."),
  zoneHost: z.string().nullable().describe("Host relative to the zone that holds it (zone.name); '@' is the zone root."),
  value: z.string().describe("The exact value to publish."),
  priority: z.number().nullable().describe("Priority (MX)."),
  required: z.boolean().describe("False for recommended records (DMARC)."),
  verified: z.boolean().nullable().describe("Result of the last verify; null when not checked (a plain read)."),
  problem: z.string().nullable().describe("What the last verify found wrong; null when not checked."),
}).meta({ typeName: "MailDnsRecord" });
export type MailRecordOutput = z.infer<typeof mailRecordOutput>;

export const mailZoneOutput = z
  .object({
    name: z.string().describe("The zone the records are added to."),
    dnsZoneId: z.string().nullable().describe("The platform zone's id, when hostedOnPlatform."),
    hostedOnPlatform: z.boolean().describe("True when a zone of the same workspace holds the domain."),
  })
  .describe("The DNS zone the records go in.")
  .meta({ typeName: "MailDnsZone" });

export const mailDomainOutputs = z.object({
  name: z.string().describe("The sending domain."),
  region: z.string().nullable().describe("Region the domain sends from."),
  workspaceId: z.string().describe("Workspace that owns the domain."),
  status: z.string().describe("PENDING, VERIFIED, BROKEN or SUSPENDED, as of the last verify (the set is open)."),
  records: z.array(mailRecordOutput).describe("The DNS records to publish: DKIM, SPF, MX (never for an apex domain), DMARC."),
  zone: mailZoneOutput.nullable(),
  dkimPublicKey: z.string().nullable().describe("The DKIM public key (base64), as published in the DKIM record."),
  dailyQuota: z.number().nullable().describe("Messages per day; 200 on the first day of a verified domain."),
  failingRecords: z.array(z.string()).nullable().describe("Records the last verify found failing; null before the first verify."),
  alignmentWarning: z.string().nullable().describe("Set when the domain's DMARC policy would break signing."),
  lastCheckedAt: z.string().nullable().describe("When DNS was last checked."),
  verifiedAt: z.string().nullable().describe("When the domain was first verified."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
});
export type MailDomainOutputs = z.infer<typeof mailDomainOutputs>;

const DIFF = { replace: ["name", "region", "workspaceId"], defaulted: ["region", "workspaceId"], deleteBeforeReplace: true };

export const MailDomain = defineResource<MailDomainInputs, MailDomainOutputs>({
  token: "cloudplatform:index:MailDomain",
  description: "A mail sending domain. Publish its records (or use VerifiedMailDomain), then verify it with MailDomainVerification.",
  inputs: mailDomainInputs,
  outputs: mailDomainOutputs,
  deleteBeforeReplace: true,
  importId: { format: "<workspaceId>/<domainId>", note: "A bare `<domainId>` is looked up in the configured workspace. The resource's id in state is the domain's id." },
  inputsOf,

  // ---- check ----
  check: (_olds, news) => checkWith(mailDomainInputs, news),

  // ---- diff ----
  diff: (_id, olds, news) => diffWith(olds, news, DIFF),

  // ---- create ----
  async create(ctx, inputs) {
    const workspaceId = inputs.workspaceId ?? (await ctx.workspaceId());
    const body: MailDomainCreateBody = { name: inputs.name };
    if (inputs.region !== undefined) body.region = inputs.region;
    let detail = await mailDomainApi.create(ctx.client, workspaceId, body, {
      own: (made) => made.domain.id,
      exists: async (made) => !!(await findMailDomain(ctx, workspaceId, made.domain.id)),
    });
    // The create response is not specified; read the detail back when it lacks the records.
    if (!detail.records.length) detail = (await findMailDomain(ctx, workspaceId, detail.domain.id)) ?? detail;
    return { id: detail.domain.id, outs: toOutputs(detail, workspaceId) };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const [fromId, domainId] = splitFirst(id);
    const ws = olds.workspaceId || fromId || (await ctx.workspaceId());
    const detail = await findMailDomain(ctx, ws, domainId);
    if (!detail) return {};
    const outs = toOutputs(detail, ws);
    return { id: domainId, props: outs, inputs: inputsOf(outs) };
  },

  // ---- delete ----
  async delete(ctx, id, olds) {
    const [fromId, domainId] = splitFirst(id);
    const ws = await workspaceOf(ctx, olds.workspaceId || fromId, `mail domain ${olds.name ?? domainId}`, async (w) => !!(await findMailDomain(ctx, w, domainId)));
    await deleteIgnoringNotFound(() => mailDomainApi.delete(ctx.client, ws, statePart(domainId, "domain id")));
  },
});

// ---- finders ----

export async function findMailDomain(ctx: Context, workspaceId: string | undefined, id: string): Promise<V1MailDomainDetail | undefined> {
  const ws = workspaceId || (await ctx.workspaceId());
  return findOrUndefined(() => mailDomainApi.get(ctx.client, ws, id));
}

// ---- mappers ----
const ORDER = ["DKIM", "SPF", "MX", "DMARC"];
const rank = (r: V1MailDnsRecord) => {
  const i = ORDER.indexOf((r.name ?? "").toUpperCase());
  return i < 0 ? ORDER.length : i;
};

/** DKIM, SPF, MX, DMARC, then anything else by name: the order never depends on the API's. */
export function sortRecords(records: V1MailDnsRecord[]): V1MailDnsRecord[] {
  return [...records].sort((a, b) => rank(a) - rank(b) || a.fqdn.localeCompare(b.fqdn) || a.type.localeCompare(b.type));
}

export function recordOutputs(records: V1MailDnsRecord[]): MailRecordOutput[] {
  return sortRecords(records).map((r) => ({
    name: r.name ?? null,
    type: r.type.toUpperCase(),
    host: r.host ?? null,
    fqdn: normaliseDomain(r.fqdn),
    zoneHost: r.zoneHost ?? null,
    value: r.value,
    priority: r.priority ?? null,
    required: r.required,
    verified: r.verified ?? null,
    problem: r.problem ?? null,
  }));
}

export function toOutputs(d: V1MailDomainDetail, workspaceId: string): MailDomainOutputs {
  return {
    name: d.domain.name,
    region: d.domain.region ?? null,
    workspaceId,
    status: d.domain.status,
    records: recordOutputs(d.records),
    zone: d.zone ? { name: d.zone.name, dnsZoneId: d.zone.dnsZoneId ?? null, hostedOnPlatform: d.zone.hostedOnPlatform } : null,
    dkimPublicKey: d.domain.dkimPublicKey ?? null,
    dailyQuota: d.domain.dailyQuota ?? null,
    failingRecords: d.domain.failingRecords ?? null,
    alignmentWarning: d.alignmentWarning ?? null,
    lastCheckedAt: d.domain.lastCheckedAt ?? null,
    verifiedAt: d.domain.verifiedAt ?? null,
    createdAt: d.domain.createdAt ?? null,
  };
}

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: MailDomainOutputs): MailDomainInputs {
  return ({ name: o.name, ...(o.region ? { region: o.region } : {}) });
}

// ---- functions ----
export const getMailDomain = defineFunction<{ domainId?: string; name?: string; workspaceId?: string }>("getMailDomain", {
  token: "cloudplatform:index:getMailDomain",
  description: "Looks up a sending domain by id or name: its status, records to publish, zone and quota.",
  inputs: z.object({
    domainId: z.string().describe("The domain's id; or give its name.").optional(),
    name: z.string().describe("The sending domain's name; or give its id.").optional(),
    workspaceId: z.string().describe("Defaults to cloudplatform:workspaceId, or the only workspace the key reaches.").optional(),
  }),
  outputs: mailDomainOutputs.extend({ id: z.string().describe("The domain's id.") }),
  async invoke(ctx, args) {
    const ws = args.workspaceId ?? (await ctx.workspaceId());
    let id: string | undefined = args.domainId;
    if (!id) {
      if (!args.name) throw new Error("getMailDomain: give domainId or name");
      const wanted = normaliseDomain(args.name);
      const all = await mailDomainApi.list(ctx.client, ws);
      id = all.find((d) => normaliseDomain(d.name) === wanted)?.id;
      if (!id) throw new Error(`getMailDomain: no sending domain named ${wanted} in workspace ${ws}`);
    }
    const detail = await findMailDomain(ctx, ws, id);
    if (!detail) throw new Error(`getMailDomain: no sending domain ${id} in workspace ${ws}`);
    return { id: detail.domain.id, ...toOutputs(detail, ws) };
  },
});

const limitsNumbers = (fields: Record<string, string>) => z.object(Object.fromEntries(Object.entries(fields).map(([k, what]) => [k, z.number().nullable().describe(what)])));
export const getMailLimits = defineFunction("getMailLimits", {
  token: "cloudplatform:index:getMailLimits",
  description: "The email API's limits (GET /v1/limits): the static limits, the key's send rate, and each sending domain's daily quota. Needs a key with EMAIL_SEND.",
  inputs: z.object({
    workspaceId: z.string().describe("Defaults to cloudplatform:workspaceId, or the only workspace the key reaches.").optional(),
  }),
  outputs: z.object({
    sandbox: z.boolean().describe("True when the key is a sandbox mail key."),
    limits: limitsNumbers({
      recipientsPerMessage: "Recipients of one message, to, cc and bcc together (50 on the platform).",
      messageSizeBytes: "Size of one message in bytes: html, text and attachments (10 MiB on the platform).",
      headersPerMessage: "Custom headers of one message (25 on the platform).",
      tagsPerMessage: "Tags of one message (10 on the platform).",
      tagKeyMaxLength: "Characters of a tag's key (64 on the platform).",
      tagValueMaxLength: "Characters of a tag's value (256 on the platform).",
      messagesPerBatch: "Messages of one batch send (100 on the platform).",
      pageSizeMax: "Largest page of an email list (100 on the platform).",
    }).describe("Per-message and per-request limits."),
    rateLimit: limitsNumbers({ requestsPerMinute: "Send requests the key may make per minute (3,000 on the platform).", remaining: "Requests left in the current minute." })
      .describe("The key's send rate and what is left of the current minute."),
    domains: z.array(z.object({
      id: z.string().nullable().describe("The domain's id."),
      name: z.string().describe("The sending domain."),
      status: z.string().nullable().describe("PENDING, VERIFIED, BROKEN or SUSPENDED (the set is open)."),
      dailyQuota: z.number().nullable().describe("Recipients the domain may send to today (0 until verified)."),
      sentToday: z.number().nullable().describe("Recipients sent to today (UTC day)."),
      remainingToday: z.number().nullable().describe("Recipients left today."),
      maxDailyQuota: z.number().nullable().describe("The self-serve ceiling: the quota starts at 200 and doubles per full day of clean sending, up to 50,000."),
      quotaResetsAt: z.string().nullable().describe("When today's count starts again (ISO 8601)."),
    })).describe("Each sending domain's daily quota."),
  }),
  async invoke(ctx, args: { workspaceId?: string }) {
    const ws = args.workspaceId ?? (await ctx.workspaceId());
    const l = await mailDomainApi.limits(ctx.client, ws);
    const num = (o: Record<string, unknown> | null | undefined, ...keys: string[]) => {
      const v = keys.map((k) => o?.[k]).find((x) => typeof x === "number");
      return typeof v === "number" ? v : null;
    };
    const lim = l.limits;
    const rate = l.rate_limit ?? l.rateLimit;
    return {
      sandbox: l.sandbox ?? false,
      limits: {
        recipientsPerMessage: num(lim, "recipients_per_message", "recipientsPerMessage"),
        messageSizeBytes: num(lim, "message_size_bytes", "messageSizeBytes"),
        headersPerMessage: num(lim, "headers_per_message", "headersPerMessage"),
        tagsPerMessage: num(lim, "tags_per_message", "tagsPerMessage"),
        tagKeyMaxLength: num(lim, "tag_key_max_length", "tagKeyMaxLength"),
        tagValueMaxLength: num(lim, "tag_value_max_length", "tagValueMaxLength"),
        messagesPerBatch: num(lim, "messages_per_batch", "messagesPerBatch"),
        pageSizeMax: num(lim, "page_size_max", "pageSizeMax"),
      },
      rateLimit: { requestsPerMinute: num(rate, "requests_per_minute", "requestsPerMinute"), remaining: num(rate, "remaining") },
      domains: l.domains.map((d) => ({
        id: d.id ?? null,
        name: d.name,
        status: d.status ?? null,
        dailyQuota: d.daily_quota ?? d.dailyQuota ?? null,
        sentToday: d.sent_today ?? d.sentToday ?? null,
        remainingToday: d.remaining_today ?? d.remainingToday ?? null,
        maxDailyQuota: d.max_daily_quota ?? d.maxDailyQuota ?? null,
        quotaResetsAt: d.quota_resets_at ?? d.quotaResetsAt ?? null,
      })),
    };
  },
});
