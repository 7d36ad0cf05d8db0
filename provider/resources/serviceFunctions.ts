// getService, getServiceConnection, getRegions and getPricing: described for schema.json and run by both adapters.
import { z } from "zod";
import { catalogueApi, serviceApi } from "../api/endpoints/services";
import { regionKeyOf } from "../api/services";
import { defineFunction } from "../functions";
import { id } from "./rules";

export const getService = defineFunction<{ serviceId: string }>("getService", {
  token: "cloudplatform:index:getService",
  description: "Looks up a service by id: its type, status, health, URL and region.",
  inputs: z.object({ serviceId: id("The service's id.") }),
  outputs: z.object({
    id: z.string(), environmentId: z.string(), name: z.string(), type: z.string(), status: z.string(), health: z.string(),
    suspension: z.string(), url: z.string().nullable(), region: z.string().nullable(), tier: z.string().nullable(),
  }),
  async invoke(ctx, args) {
    const s = await serviceApi.get(ctx.client, args.serviceId);
    return {
      id: s.id, environmentId: s.environmentId, name: s.name, type: s.type, status: s.status, health: s.health,
      suspension: s.suspension, url: s.url ?? null, region: regionKeyOf(s.region), tier: s.tier ?? null,
    };
  },
});
export const getServiceConnection = defineFunction<{ serviceId: string }>("getServiceConnection", {
  token: "cloudplatform:index:getServiceConnection",
  description: "How to reach a database service: host, port, database, user and password. The Output form is secret as a whole (the URL holds the password). A read-only key gets an empty password.",
  inputs: z.object({ serviceId: id("The database service's id.") }),
  outputs: z.object({
    serviceId: z.string().describe("The database service's id."),
    scheme: z.string().describe("postgresql, mysql, mariadb, mongodb or redis."),
    host: z.string().describe("Host name, reachable from the environment's other services."), port: z.number().describe("TCP port."),
    database: z.string().nullable().describe("Database name."), user: z.string().nullable().describe("Database user."),
    password: z.string().meta({ secret: true, description: "The database user's password; empty for a read-only key." }),
    url: z.string().nullable().meta({ secret: true, description: "The connection URL, password included." }),
    externalUrl: z.string().nullable().describe("Public URL when external access is on."),
  }),
  secretOutputs: ["password", "url"],
  async invoke(ctx, args) {
    const c = await serviceApi.connection(ctx.client, args.serviceId);
    return {
      serviceId: args.serviceId, scheme: c.scheme, host: c.host, port: c.port, database: c.database ?? null, user: c.username ?? null,
      password: c.password ?? "", url: c.url ?? null, externalUrl: c.externalUrl ?? null,
    };
  },
});
export const getRegions = defineFunction("getRegions", {
  token: "cloudplatform:index:getRegions",
  description: "The regions services can be placed in, and whether a FREE service can run there.",
  inputs: z.object({}),
  outputs: z.object({
    regions: z.array(z.object({
      region: z.string().describe("The region key, e.g. af-west-1: what `region` inputs take."),
      label: z.string().nullable().describe("Human name of the region."),
      isDefault: z.boolean().describe("True for the region used when none is named."),
      freeTier: z.boolean().describe("True when a FREE service can run there."),
    })),
  }),
  async invoke(ctx) {
    const regions = await catalogueApi.regions(ctx.client);
    return { regions: regions.map((r) => ({ region: r.region, label: r.label ?? null, isDefault: r.isDefault, freeTier: r.freeTier })) };
  },
});
export const getPricing = defineFunction("getPricing", {
  token: "cloudplatform:index:getPricing",
  description: "The pricing catalogue: instance tiers with their sizes and prices, unit rates and free allowances.",
  inputs: z.object({}),
  outputs: z.object({
    currency: z.string().describe("Currency of every amount."),
    serviceTiers: z.array(z.object({
      tier: z.string().describe("FREE, PRO, STANDARD or STARTER (the set is open)."),
      label: z.string().nullable().describe("Human name of the tier."), family: z.string().nullable().describe("The tier's instance family."),
      cpuMillicores: z.number().nullable().describe("CPU in millicores (1000 is one vCPU)."), memoryMb: z.number().nullable().describe("Memory in MB."),
      storageMb: z.number().nullable().describe("Disk in MB; null when the tier has no fixed disk."), priceKobo: z.number().describe("Monthly price in kobo (1/100 of the currency's unit)."),
      currency: z.string().nullable().describe("Currency of the price."),
    })).describe("Instance tiers, their sizes and prices."),
    unitRates: z.record(z.string(), z.number()).describe("Unit rates in kobo (vcpuKoboPerVcpuMonth, memoryKoboPerGbMonth, ...)."),
    freeAllowances: z.record(z.string(), z.number()).describe("Free allowances (monthlyCreditKobo, storageBytes, egressBytes, ...)."),
    computeGraceDays: z.number().nullable().describe("Days at an empty balance before paid apps stop."),
    dataGraceDays: z.number().nullable().describe("The same for paid databases and caches, whose data is kept."),
    stopsPaidServices: z.boolean().nullable().describe("Whether an empty balance stops paid services."),
    minTopUpKobo: z.number().nullable().describe("Smallest top-up."),
    maxTopUpKobo: z.number().nullable().describe("Largest top-up; null means no maximum."),
    neverBilled: z.array(z.string()).describe("What is never billed."),
  }),
  async invoke(ctx) {
    const p = await catalogueApi.pricing(ctx.client);
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
  },
});
