// The regions and pricing catalogue (infrastructure routes §2.8, §4.10).
import { ok, page, type RouteDef } from "../http";
import { PRICING_CATALOG, REGIONS } from "../models/catalogue";

export const catalogueRoutes: RouteDef[] = [
  { method: "GET", url: "/v1/regions", scope: "Rp", handler: ({ query }) => ok(page(REGIONS.map((r) => ({ ...r })), query)) },
  { method: "GET", url: "/v1/pricing", scope: "Rp", handler: () => ok(PRICING_CATALOG) },
];
