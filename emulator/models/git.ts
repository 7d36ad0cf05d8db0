// Git repository discovery through the repository app (infrastructure routes §2.8, §4.10). Each
// workspace has the app installed on an organisation named after it, with a fixed set of
// repositories and branches, so service creation by repoFullName has something real to name.
import type { Workspace } from "../auth";
import { badRequest, notFound } from "../errors";
import { derivedId } from "./dns";
import { slug } from "./lifecycle";

const REPOS = [
  { name: "storefront", private: true, defaultBranch: "main", branches: ["main", "develop", "feature/checkout-v2", "release/2026.11"] },
  { name: "api", private: true, defaultBranch: "main", branches: ["main", "staging", "fix/rate-limits"] },
  { name: "marketing-site", private: false, defaultBranch: "main", branches: ["main", "redesign"] },
  { name: "infra", private: true, defaultBranch: "trunk", branches: ["trunk"] },
  { name: "docs", private: false, defaultBranch: "main", branches: ["main", "v2"] },
];

export const GIT_APP_URL = "https://git.cloudplatform.test/apps/cloudplatform";

export const installUrl = (ws: Workspace) => ({ url: `${GIT_APP_URL}/installations/new?state=${encodeURIComponent(ws.id)}` });

const installationId = (ws: Workspace) => String(parseInt(derivedId(ws.id, "installation").slice(0, 7), 16));

/** V1Repository rows, by full name. */
export function repositoriesOf(ws: Workspace) {
  const owner = slug(ws.name);
  return REPOS.map((r) => ({ fullName: `${owner}/${r.name}`, private: r.private, defaultBranch: r.defaultBranch, installationId: installationId(ws) }));
}

export function branchesOf(ws: Workspace, repo: unknown) {
  if (typeof repo !== "string" || repo === "") throw badRequest("repo: is required: the repository's full name, owner/name");
  const owner = slug(ws.name);
  const r = REPOS.find((x) => `${owner}/${x.name}` === repo.toLowerCase());
  if (!r) throw notFound("Repository", repo);
  return r.branches.map((name) => ({ name }));
}
