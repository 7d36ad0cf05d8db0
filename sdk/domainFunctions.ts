// getCustomDomains and getPreviews (by service), with their Output forms; they run the provider's own
// implementations in the program's process.
import { getCustomDomains as customDomains } from "../provider/resources/customDomain";
import { getPreviews as previews } from "../provider/resources/previews";
import { invokeFunction, outputForm } from "./functions";
import type { GetCustomDomainsArgs, GetCustomDomainsResult, GetPreviewsArgs, GetPreviewsResult } from "./types";

/** The custom domains of a service, oldest first: each with its status, DNS target, conflicts and last check. */
export const getCustomDomains = (args: GetCustomDomainsArgs): Promise<GetCustomDomainsResult> => invokeFunction(customDomains, args);
export const getCustomDomainsOutput = outputForm(getCustomDomains);

/** The pull-request previews of a service (open and closed), with their status, URL and environment. */
export const getPreviews = (args: GetPreviewsArgs): Promise<GetPreviewsResult> => invokeFunction(previews, args);
export const getPreviewsOutput = outputForm(getPreviews);
