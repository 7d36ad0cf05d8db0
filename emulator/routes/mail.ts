// Mail sending domains, suppressions and mail keys: the workspace-scoped routes (§4.9) and the
// short routes (§4.8), which need EMAIL_SEND and PLATFORM_API together.
import type { ApiKey } from "../auth";
import { created, noContent, ok, page, parse, type RouteDef } from "../http";
import {
  addDomain, addSuppression, createDomainBody, createSuppressionBody, detailView, domainsOf, domainView, getDomain, mailKeyView,
  removeDomain, removeSuppression, shortRouteWorkspace, suppressionsOf, suppressionView, verifyDomain,
} from "../models/mail";

const wsRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/mail/domains", scope: "Re",
    handler: ({ principal, params, query, emu }) => ok(page(domainsOf(emu, principal.workspace(params.workspaceId)).map(domainView), query)),
  },
  {
    method: "POST", url: "/v1/workspaces/:workspaceId/mail/domains", scope: "We", idempotent: true,
    handler: ({ principal, params, body, emu }) => created(detailView(emu, addDomain(emu, principal.workspace(params.workspaceId), parse(createDomainBody, body)))),
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/mail/domains/:domainId", scope: "Re",
    handler: ({ principal, params, emu }) => {
      const ws = principal.workspace(params.workspaceId);
      return ok(detailView(emu, getDomain(emu, principal, params.domainId, ws.id)));
    },
  },
  {
    method: "DELETE", url: "/v1/workspaces/:workspaceId/mail/domains/:domainId", scope: "We",
    handler: ({ principal, params, emu }) => {
      const ws = principal.workspace(params.workspaceId);
      removeDomain(emu, getDomain(emu, principal, params.domainId, ws.id));
      return noContent();
    },
  },
  {
    method: "POST", url: "/v1/workspaces/:workspaceId/mail/domains/:domainId/verify", scope: "We",
    handler: ({ principal, params, emu }) => {
      const ws = principal.workspace(params.workspaceId);
      return ok(verifyDomain(emu, getDomain(emu, principal, params.domainId, ws.id)));
    },
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/mail/keys", scope: "Re",
    handler: ({ principal, params, query, emu }) => {
      const ws = principal.workspace(params.workspaceId);
      const keys = emu.store.table<ApiKey>("apiKeys").where((k) => (k.kind === "mail_live" || k.kind === "mail_test") && k.workspaceId === ws.id);
      return ok(page(keys.map(mailKeyView), query));
    },
  },
];

// EMAIL_SEND and PLATFORM_API together; a sandbox key may read (auth.ts).
const shortRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/domains", scope: "Rep",
    handler: ({ principal, query, emu }) => {
      return ok(page(domainsOf(emu, shortRouteWorkspace(principal, query)).map(domainView), query));
    },
  },
  {
    method: "POST", url: "/v1/domains", scope: "Wep", idempotent: true,
    handler: ({ principal, query, body, emu }) => {
      return created(detailView(emu, addDomain(emu, shortRouteWorkspace(principal, query), parse(createDomainBody, body))));
    },
  },
  {
    method: "GET", url: "/v1/domains/:id", scope: "Rep",
    handler: ({ principal, params, emu }) => {
      return ok(detailView(emu, getDomain(emu, principal, params.id)));
    },
  },
  {
    method: "POST", url: "/v1/domains/:id/verify", scope: "Wep",
    handler: ({ principal, params, emu }) => {
      return ok(verifyDomain(emu, getDomain(emu, principal, params.id)));
    },
  },
  {
    method: "DELETE", url: "/v1/domains/:id", scope: "Wep",
    handler: ({ principal, params, emu }) => {
      removeDomain(emu, getDomain(emu, principal, params.id));
      return noContent();
    },
  },
  {
    method: "GET", url: "/v1/suppressions", scope: "Rep",
    handler: ({ principal, query, emu }) => {
      return ok(page(suppressionsOf(emu, shortRouteWorkspace(principal, query)).map(suppressionView), query));
    },
  },
  {
    method: "POST", url: "/v1/suppressions", scope: "Wep",
    handler: ({ principal, query, body, emu }) => {
      const input = parse(createSuppressionBody, body);
      return created(suppressionView(addSuppression(emu, shortRouteWorkspace(principal, query), input.address)));
    },
  },
  {
    method: "DELETE", url: "/v1/suppressions/:address", scope: "Wep",
    handler: ({ principal, params, query, emu }) => {
      removeSuppression(emu, shortRouteWorkspace(principal, query), params.address);
      return noContent();
    },
  },
];

export const mailRoutes: RouteDef[] = [...wsRoutes, ...shortRoutes];
