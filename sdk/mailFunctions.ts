// getMailDomain and getDnsZone (by name), with their Output forms.
import { findMailDomain, domainsPath, toOutputs as mailOutputs } from "../provider/resources/mailDomain";
import { findZoneByName, normaliseDomain, toOutputs as zoneOutputs } from "../provider/resources/dnsZone";
import { V1MailDomain } from "../provider/api/mail";
import { functionContext, outputForm } from "./functions";
import type { GetDnsZoneArgs, GetDnsZoneResult, GetMailDomainArgs, GetMailDomainResult } from "./types";

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
