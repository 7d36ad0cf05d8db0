// Custom domain routes (infrastructure routes §4.9).
import type { Ctx } from "../http";
import { created, noContent, ok, page, parse, type RouteDef } from "../http";
import {
  addCustomDomain, createCustomDomainBody, customDomainsOf, customDomainView, getCustomDomain, removeCustomDomain, verifyCustomDomain,
} from "../models/custom-domains";
import { getService } from "../models/services";

const svcOf = ({ principal, params, emu }: Ctx) => getService(emu, principal, params.serviceId);

export const customDomainRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/services/:serviceId/custom-domains", scope: "Rp",
    handler: (ctx) => ok(page(customDomainsOf(ctx.emu, svcOf(ctx).id).map((d) => customDomainView(ctx.emu, d)), ctx.query)),
  },
  {
    method: "POST", url: "/v1/services/:serviceId/custom-domains", scope: "Wp", idempotent: true,
    handler: (ctx) => created(customDomainView(ctx.emu, addCustomDomain(ctx.emu, svcOf(ctx), parse(createCustomDomainBody, ctx.body)))),
  },
  {
    method: "POST", url: "/v1/custom-domains/:domainId/verify", scope: "Wp",
    handler: ({ principal, params, emu }) => ok(customDomainView(emu, verifyCustomDomain(emu, getCustomDomain(emu, principal, params.domainId)))),
  },
  {
    method: "DELETE", url: "/v1/custom-domains/:domainId", scope: "Wp",
    handler: ({ principal, params, emu }) => {
      removeCustomDomain(emu, getCustomDomain(emu, principal, params.domainId));
      return noContent();
    },
  },
];
