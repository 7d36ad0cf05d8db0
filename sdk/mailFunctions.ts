// getMailDomain, getDnsZone (by name) and getMailLimits, with their Output forms.
import { findMailDomain, domainsPath, toOutputs as mailOutputs } from "../provider/resources/mailDomain";
import { findZoneByName, normaliseDomain, toOutputs as zoneOutputs } from "../provider/resources/dnsZone";
import { V1MailDomain, V1MailLimits } from "../provider/api/mail";
import { functionContext, outputForm } from "./functions";
import type { GetDnsZoneArgs, GetDnsZoneResult, GetMailDomainArgs, GetMailDomainResult, GetMailLimitsArgs, GetMailLimitsResult } from "./types";

/** Looks up a sending domain by id or name: its status, records to publish, zone and quota. */
export async function getMailDomain(args: GetMailDomainArgs): Promise<GetMailDomainResult> {
  const ctx = functionContext();
  const ws = args.workspaceId ?? (await ctx.workspaceId());
  let id: string | undefined = args.domainId;
  if (!id) {
    if (!args.name) throw new Error("getMailDomain: give domainId or name");
    const wanted = normaliseDomain(args.name);
    const all = await ctx.client.list(domainsPath(ws), { item: V1MailDomain });
    id = all.find((d) => normaliseDomain(d.name) === wanted)?.id;
    if (!id) throw new Error(`getMailDomain: no sending domain named ${wanted} in workspace ${ws}`);
  }
  const detail = await findMailDomain(ctx, ws, id);
  if (!detail) throw new Error(`getMailDomain: no sending domain ${id} in workspace ${ws}`);
  return { id: detail.domain.id, ...mailOutputs(detail, ws) };
}
export const getMailDomainOutput = outputForm(getMailDomain);

/** Looks up a platform DNS zone by name: its id, whether it is published, and how to verify it. */
export async function getDnsZone(args: GetDnsZoneArgs): Promise<GetDnsZoneResult> {
  const ctx = functionContext();
  const ws = args.workspaceId ?? (await ctx.workspaceId());
  const zone = await findZoneByName(ctx, args.name, ws);
  if (!zone) throw new Error(`getDnsZone: no DNS zone named ${args.name} in workspace ${ws}`);
  return { id: zone.id, ...zoneOutputs(zone, ws) };
}
export const getDnsZoneOutput = outputForm(getDnsZone);

/** The email API's limits: static limits, the key's send rate, each sending domain's daily quota. */
export async function getMailLimits(args: GetMailLimitsArgs = {}): Promise<GetMailLimitsResult> {
  const ctx = functionContext();
  const ws = args.workspaceId ?? (await ctx.workspaceId());
  const l = await ctx.client.get("/v1/limits", { query: { workspaceId: ws }, schema: V1MailLimits });
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
}
export const getMailLimitsOutput = outputForm(getMailLimits);
