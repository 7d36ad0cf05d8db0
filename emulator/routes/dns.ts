// DNS zone, DNS record and registered-domain routes (infrastructure routes §4.1).
import { z } from "zod";
import { created, noContent, ok, page, parse, type RouteDef } from "../http";
import { badRequest } from "../errors";
import {
  createRecord, createRecordBody, createZone, createZoneBody, deleteRecord, getRecord, getZone, patchRecord,
  patchRecordBody, recordsByZone, recordView, verifyZone, zoneFile, zonesOf, zoneView,
} from "../models/dns";
import { pageOf } from "../pages";
import { deleteZone } from "../models/cascades";
import {
  getRegisteredDomain, ordersOf, patchRegisteredBody, patchRegisteredDomain, registerBody, registerCheckout,
  registeredDomainsOf, renewalCheckout, renewalQuote, search, searchRow,
} from "../models/domains";

const yearsQuery = z.object({ years: z.coerce.number({ error: "must be an integer" }).int("must be an integer").min(1, "must be 1 to 10").max(10, "must be 1 to 10").default(1) });
const renewalBody = z.object({ years: z.number({ error: "must be a number" }).int("must be an integer").min(1, "must be 1 to 10").max(10, "must be 1 to 10").optional() });

export const dnsRoutes: RouteDef[] = [
  // ---- zones ----
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/dns-zones", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(zonesOf(emu, principal.workspace(params.workspaceId).id).map(zoneView), query)),
  },
  {
    method: "POST", url: "/v1/workspaces/:workspaceId/dns-zones", scope: "Wp", idempotent: true,
    handler: ({ principal, params, body, emu }) =>
      created(zoneView(createZone(emu, principal.workspace(params.workspaceId), parse(createZoneBody, body)))),
  },
  {
    method: "POST", url: "/v1/dns-zones/:zoneId/verify", scope: "Wp",
    handler: ({ principal, params, emu }) => ok(zoneView(verifyZone(emu, getZone(emu, principal, params.zoneId)))),
  },
  {
    method: "DELETE", url: "/v1/dns-zones/:zoneId", scope: "Wp",
    handler: ({ principal, params, emu }) => {
      deleteZone(emu, getZone(emu, principal, params.zoneId));
      return noContent();
    },
  },
  {
    method: "GET", url: "/v1/dns-zones/:zoneId/export", scope: "Rp",
    handler: ({ principal, params, emu }) => ({ status: 200, body: zoneFile(emu, getZone(emu, principal, params.zoneId)), contentType: "text/plain; charset=utf-8" }),
  },
  // ---- records ----
  {
    method: "GET", url: "/v1/dns-zones/:zoneId/records", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(pageOf(recordsByZone(emu), getZone(emu, principal, params.zoneId).id, query, recordView)),
  },
  {
    method: "POST", url: "/v1/dns-zones/:zoneId/records", scope: "Wp", idempotent: true,
    handler: ({ principal, params, body, emu }) =>
      created(recordView(createRecord(emu, getZone(emu, principal, params.zoneId), parse(createRecordBody, body)))),
  },
  {
    method: "PATCH", url: "/v1/dns-records/:recordId", scope: "Wp",
    handler: ({ principal, params, body, emu }) => {
      const { record, zone } = getRecord(emu, principal, params.recordId);
      return ok(recordView(patchRecord(emu, zone, record, parse(patchRecordBody, body))));
    },
  },
  {
    method: "DELETE", url: "/v1/dns-records/:recordId", scope: "Wp",
    handler: ({ principal, params, emu }) => {
      deleteRecord(emu, getRecord(emu, principal, params.recordId).record);
      return noContent();
    },
  },
  // ---- registered domains ----
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/registered-domains", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(registeredDomainsOf(emu, principal.workspace(params.workspaceId)), query)),
  },
  {
    method: "POST", url: "/v1/workspaces/:workspaceId/registered-domains", scope: "Wp", idempotent: true,
    handler: ({ principal, params, body, emu }) => created(registerCheckout(emu, principal.workspace(params.workspaceId), parse(registerBody, body))),
  },
  {
    // Not in the spec's table; the read the list implies, for clients that hold an id.
    method: "GET", url: "/v1/registered-domains/:domainId", scope: "Rp",
    handler: ({ principal, params, emu }) => ok(getRegisteredDomain(emu, principal, params.domainId).domain),
  },
  {
    method: "PATCH", url: "/v1/registered-domains/:domainId", scope: "Wp",
    handler: ({ principal, params, body, emu }) =>
      ok(patchRegisteredDomain(emu, getRegisteredDomain(emu, principal, params.domainId).domain, parse(patchRegisteredBody, body ?? {}))),
  },
  {
    method: "GET", url: "/v1/registered-domains/:domainId/renewal-quote", scope: "Rp",
    handler: ({ principal, params, query, emu }) =>
      ok(renewalQuote(emu, getRegisteredDomain(emu, principal, params.domainId).domain, parse(yearsQuery, query, "query").years)),
  },
  {
    method: "POST", url: "/v1/registered-domains/:domainId/renewals", scope: "Wp", idempotent: true,
    handler: ({ principal, params, body, emu }) =>
      created(renewalCheckout(emu, getRegisteredDomain(emu, principal, params.domainId).domain, parse(renewalBody, body ?? {}).years ?? 1)),
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/domain-search", scope: "Rp",
    handler: ({ principal, params, query }) => {
      principal.workspace(params.workspaceId);
      if (typeof query.query !== "string" || !query.query.trim()) throw badRequest("query: the query parameter query is required");
      return ok(search(query.query));
    },
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/domain-availability", scope: "Rp",
    handler: ({ principal, params, query }) => {
      principal.workspace(params.workspaceId);
      const raw = query.domains;
      const list = (Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []).map(String).filter(Boolean);
      if (!list.length) throw badRequest("domains: at least one full domain name is required (repeat the parameter)");
      if (list.length > 20) throw badRequest("domains: at most 20 names per request");
      return ok(page(list.map((d) => searchRow(d.trim().toLowerCase().replace(/\.$/, ""))), { limit: 20 }));
    },
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/domain-orders", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(ordersOf(emu, principal.workspace(params.workspaceId)), query)),
  },
];
