// getService, getRegions and getPricing, with their Output forms; they run the provider's own
// implementations in the program's process.
import { getPricing as pricing, getRegions as regions, getService as service } from "../provider/resources/serviceFunctions";
import type { GetPricingArgs, GetPricingResult, GetRegionsArgs, GetRegionsResult, GetServiceArgs, GetServiceResult } from "./types";
import { functionContext, outputForm } from "./functions";

/** Looks up a service by id: its type, status, health, URL and region. */
export const getService = (args: GetServiceArgs): Promise<GetServiceResult> => service.invoke(functionContext(), args);
export const getServiceOutput = outputForm(getService);

/** The regions services can be placed in, and whether a FREE service can run there. */
export const getRegions = (args: GetRegionsArgs = {}): Promise<GetRegionsResult> => regions.invoke(functionContext(), args);
export const getRegionsOutput = outputForm(getRegions);

/** The pricing catalogue: instance tiers with their sizes and prices, unit rates and free allowances. */
export const getPricing = (args: GetPricingArgs = {}): Promise<GetPricingResult> => pricing.invoke(functionContext(), args);
export const getPricingOutput = outputForm(getPricing);
