// Git repository discovery (infrastructure routes §4.10).
import { matchesSearch, ok, page, type RouteDef } from "../http";
import { branchesOf, installUrl, repositoriesOf } from "../models/git";

export const gitRoutes: RouteDef[] = [
  { method: "GET", url: "/v1/workspaces/:workspaceId/git/install-url", scope: "Rp", handler: ({ principal, params }) => ok(installUrl(principal.workspace(params.workspaceId))) },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/git/repositories", scope: "Rp",
    handler: ({ principal, params, query }) =>
      ok(page(repositoriesOf(principal.workspace(params.workspaceId)).filter((r) => matchesSearch(query, r.fullName)), query)),
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/git/branches", scope: "Rp",
    handler: ({ principal, params, query }) =>
      ok(page(branchesOf(principal.workspace(params.workspaceId), query.repo).filter((b) => matchesSearch(query, b.name)), query)),
  },
];
