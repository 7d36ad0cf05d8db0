// getService, getServiceConnection, getRegions and getPricing, with their Output forms.
import * as pulumi from "@pulumi/pulumi";
import { regionKeyOf, V1Connection, V1DeployLocation, V1PricingCatalog, V1Service } from "../provider/api/services";
import type {
  GetPricingArgs, GetPricingResult, GetRegionsArgs, GetRegionsResult, GetServiceArgs, GetServiceConnectionArgs, GetServiceConnectionResult,
  GetServiceResult,
} from "./types";
import { functionContext, outputForm } from "./functions";

/** Looks up a service by id: its type, status, health, URL and region. */
export async function getService(args: GetServiceArgs): Promise<GetServiceResult> {
  const s = await functionContext().client.get(`/v1/services/${encodeURIComponent(args.serviceId)}`, { schema: V1Service });
  return {
    id: s.id, environmentId: s.environmentId, name: s.name, type: s.type, status: s.status, health: s.health,
    suspension: s.suspension, url: s.url ?? null, region: regionKeyOf(s.region), tier: s.tier ?? null,
  };
}
export const getServiceOutput = outputForm(getService);

/** How to reach a database service; 404 for a service that is no database or is still provisioning. */
export async function getServiceConnection(args: GetServiceConnectionArgs): Promise<GetServiceConnectionResult> {
  const c = await functionContext().client.get(`/v1/services/${encodeURIComponent(args.serviceId)}/connection`, { schema: V1Connection });
  return {
    serviceId: args.serviceId, scheme: c.scheme, host: c.host, port: c.port, database: c.database ?? null, user: c.username ?? null,
    password: c.password ?? "", url: c.url ?? null, externalUrl: c.externalUrl ?? null,
  };
}
/** The Output form is secret as a whole: the password (and the URL that holds it) never shows in plain text. */
const connectionOutput = outputForm(getServiceConnection);
export const getServiceConnectionOutput = (args: Parameters<typeof connectionOutput>[0]) => pulumi.secret(connectionOutput(args));

/** The regions services can be placed in, and whether a FREE service can run there. */
export async function getRegions(_args: GetRegionsArgs = {}): Promise<GetRegionsResult> {
  const regions = await functionContext().client.list("/v1/regions", { item: V1DeployLocation });
  return { regions: regions.map((r) => ({ region: r.region, label: r.label ?? null, isDefault: r.isDefault, freeTier: r.freeTier })) };
}
export const getRegionsOutput = outputForm(getRegions);

/** The pricing catalogue: instance tiers with their sizes and prices, unit rates and free allowances. */
export async function getPricing(_args: GetPricingArgs = {}): Promise<GetPricingResult> {
  const p = await functionContext().client.get("/v1/pricing", { schema: V1PricingCatalog });
  const numbers = (o: Record<string, unknown> | null | undefined) =>
    Object.fromEntries(Object.entries(o ?? {}).filter((e): e is [string, number] => typeof e[1] === "number"));
  return {
    currency: p.currency,
    serviceTiers: p.serviceTiers.map((t) => ({
      tier: t.tier, label: t.label ?? null, family: t.family ?? null, cpuMillicores: t.cpuMillicores ?? null,
      memoryMb: t.memoryMb ?? null, storageMb: t.storageMb ?? null, priceKobo: t.priceKobo, currency: t.currency ?? null,
    })),
    unitRates: numbers(p.unitRates),
    freeAllowances: numbers(p.freeAllowances),
    computeGraceDays: p.computeGraceDays ?? null,
    dataGraceDays: p.dataGraceDays ?? null,
    stopsPaidServices: p.stopsPaidServices ?? null,
    minTopUpKobo: p.minTopUpKobo ?? null,
    maxTopUpKobo: p.maxTopUpKobo ?? null,
    neverBilled: p.neverBilled,
  };
}
export const getPricingOutput = outputForm(getPricing);
