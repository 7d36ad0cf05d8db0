// Workspaces, members, invites, team roles and API key hints (infrastructure routes §4.10).
import { ok, page, type RouteDef } from "../http";
import { apiKeysOf, apiTokenView, invitesOf, membersOf, rolesOf, workspaceView } from "../models/workspaces";

export const workspaceRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/workspaces", scope: "Rp",
    handler: ({ principal, query }) => ok(page(principal.memberships().map((m) => workspaceView(principal.workspace(m.workspaceId), m.role)), query)),
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId", scope: "Rp",
    handler: ({ principal, params }) => {
      const ws = principal.workspace(params.workspaceId);
      return ok(workspaceView(ws, principal.membership(ws.id)?.role ?? null));
    },
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/members", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(membersOf(emu, principal.workspace(params.workspaceId)), query)),
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/invites", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(invitesOf(emu, principal.workspace(params.workspaceId)), query)),
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/roles", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(rolesOf(emu, principal.workspace(params.workspaceId)), query)),
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/api-keys", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(apiKeysOf(emu, principal.workspace(params.workspaceId)).map(apiTokenView), query)),
  },
];
