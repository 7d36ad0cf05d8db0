// getCustomDomains and getPreviews (by service), with their Output forms.
import { V1PrPreview } from "../provider/api/domains";
import { listCustomDomains, toOutputs } from "../provider/resources/customDomain";
import { toPreviewOutput } from "../provider/resources/previews";
import { functionContext, outputForm } from "./functions";
import type { GetCustomDomainsArgs, GetCustomDomainsResult, GetPreviewsArgs, GetPreviewsResult } from "./types";

/** The custom domains of a service, oldest first: each with its status, DNS target, conflicts and last check. */
export async function getCustomDomains(args: GetCustomDomainsArgs): Promise<GetCustomDomainsResult> {
  const all = await listCustomDomains(functionContext(), args.serviceId);
  return { domains: all.map((d) => ({ id: d.id, ...toOutputs(d, args.serviceId) })) };
}
export const getCustomDomainsOutput = outputForm(getCustomDomains);

/** The pull-request previews of a service (open and closed), with their status, URL and environment. */
export async function getPreviews(args: GetPreviewsArgs): Promise<GetPreviewsResult> {
  const all = await functionContext().client.list(`/v1/services/${encodeURIComponent(args.serviceId)}/previews`, { item: V1PrPreview });
  return { previews: all.map(toPreviewOutput) };
}
export const getPreviewsOutput = outputForm(getPreviews);
