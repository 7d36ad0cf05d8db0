// getService, getServiceConnection, getRegions and getPricing, with their Output forms; they run the
// provider's own implementations in the program's process.
import * as pulumi from "@pulumi/pulumi";
import {
  getPricing as pricing, getRegions as regions, getService as service, getServiceConnection as connection,
} from "../provider/resources/serviceFunctions";
import type {
  GetPricingArgs, GetPricingResult, GetRegionsArgs, GetRegionsResult, GetServiceArgs, GetServiceConnectionArgs, GetServiceConnectionResult,
  GetServiceResult,
} from "./types";
import { invokeFunction, outputForm } from "./functions";

/** Looks up a service by id: its type, status, health, URL and region. */
export const getService = (args: GetServiceArgs): Promise<GetServiceResult> => invokeFunction(service, args);
export const getServiceOutput = outputForm(getService);

/** How to reach a database service; 404 for a service that is no database or is still provisioning. */
export const getServiceConnection = (args: GetServiceConnectionArgs): Promise<GetServiceConnectionResult> => invokeFunction(connection, args);
/** The Output form is secret as a whole: the password (and the URL that holds it) never shows in plain text. */
const connectionOutput = outputForm(getServiceConnection);
export const getServiceConnectionOutput = (args: Parameters<typeof connectionOutput>[0]) => pulumi.secret(connectionOutput(args));

/** The regions services can be placed in, and whether a FREE service can run there. */
export const getRegions = (args: GetRegionsArgs = {}): Promise<GetRegionsResult> => invokeFunction(regions, args);
export const getRegionsOutput = outputForm(getRegions);

/** The pricing catalogue: instance tiers with their sizes and prices, unit rates and free allowances. */
export const getPricing = (args: GetPricingArgs = {}): Promise<GetPricingResult> => invokeFunction(pricing, args);
export const getPricingOutput = outputForm(getPricing);
