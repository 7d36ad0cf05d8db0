// GET /v1/me, workspaces and members (conventions §5, infrastructure routes §4.10).
import type { Member, User } from "../auth";
import { ok, page, type RouteDef } from "../http";

const meView = (u: User) => ({
  id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName, emailVerifiedAt: u.emailVerifiedAt, createdAt: u.createdAt,
});

export const identityRoutes: RouteDef[] = [
  { method: "GET", url: "/v1/me", scope: "Rp", handler: ({ principal }) => ok(meView(principal.user)) },
  {
    method: "GET", url: "/v1/workspaces", scope: "Rp",
    handler: ({ principal, query }) => {
      const rows = principal.memberships().map((m) => {
        const ws = principal.workspace(m.workspaceId);
        return { id: ws.id, name: ws.name, defaultRegion: ws.defaultRegion, role: m.role, createdAt: ws.createdAt, updatedAt: ws.updatedAt };
      });
      return ok(page(rows, query));
    },
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId", scope: "Rp",
    handler: ({ principal, params }) => {
      const ws = principal.workspace(params.workspaceId);
      const role = principal.membership(ws.id)?.role ?? null;
      return ok({ id: ws.id, name: ws.name, defaultRegion: ws.defaultRegion, role, createdAt: ws.createdAt, updatedAt: ws.updatedAt });
    },
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/members", scope: "Rp",
    handler: ({ principal, params, query, emu }) => {
      const ws = principal.workspace(params.workspaceId);
      const users = emu.store.table<User>("users");
      const rows = emu.store.table<Member>("members").where((m) => m.workspaceId === ws.id).map((m) => {
        const u = users.get(m.userId)!;
        return {
          id: m.id,
          user: { id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName },
          role: m.role,
          teamRoleId: m.readOnly ? "role_read_only" : null,
          projectIds: null,
          createdAt: m.createdAt,
        };
      });
      return ok(page(rows, query));
    },
  },
];
