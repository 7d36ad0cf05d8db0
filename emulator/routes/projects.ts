// Project and environment routes (infrastructure routes §4.2).
import { created, noContent, ok, page, parse, type RouteDef } from "../http";
import {
  createEnvironment, createEnvironmentBody, createProject, createProjectBody,
  environmentDetailView, environmentsOf, environmentView, getEnvironment, getProject, patchProject,
  patchProjectBody, projectsByWorkspace, projectView,
} from "../models/projects";
import { pageOf } from "../pages";
import { deleteEnvironment, deleteProject } from "../models/cascades";

export const projectRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/projects", scope: "Rp",
    handler: ({ principal, params, query, emu }) =>
      // Newest first.
      ok(pageOf(projectsByWorkspace(emu), principal.workspace(params.workspaceId).id, query, (p) => projectView(p), { reverse: true })),
  },
  {
    method: "POST", url: "/v1/workspaces/:workspaceId/projects", scope: "Wp", idempotent: true,
    handler: ({ principal, params, body, emu }) => {
      const ws = principal.workspace(params.workspaceId);
      const p = createProject(emu, ws, parse(createProjectBody, body));
      return created(projectView(p, []));
    },
  },
  {
    method: "GET", url: "/v1/projects/:projectId", scope: "Rp",
    handler: ({ principal, params, emu }) => {
      const p = getProject(emu, principal, params.projectId);
      return ok(projectView(p, environmentsOf(emu, p.id)));
    },
  },
  {
    method: "PATCH", url: "/v1/projects/:projectId", scope: "Wp",
    handler: ({ principal, params, body, emu }) => {
      const p = patchProject(emu, getProject(emu, principal, params.projectId), parse(patchProjectBody, body ?? {}));
      return ok(projectView(p));
    },
  },
  {
    method: "DELETE", url: "/v1/projects/:projectId", scope: "Wp",
    handler: ({ principal, params, emu }) => {
      const p = getProject(emu, principal, params.projectId);
      principal.requireAdmin(p.workspaceId);
      deleteProject(emu, p);
      return noContent();
    },
  },
  {
    method: "GET", url: "/v1/projects/:projectId/environments", scope: "Rp",
    handler: ({ principal, params, query, emu }) => {
      const p = getProject(emu, principal, params.projectId);
      return ok(page(environmentsOf(emu, p.id).map(environmentView), query));
    },
  },
  {
    method: "POST", url: "/v1/projects/:projectId/environments", scope: "Wp", idempotent: true,
    handler: ({ principal, params, body, emu }) => {
      const p = getProject(emu, principal, params.projectId);
      const env = createEnvironment(emu, p, parse(createEnvironmentBody, body));
      return created(environmentDetailView(env, p));
    },
  },
  {
    method: "GET", url: "/v1/environments/:environmentId", scope: "Rp",
    handler: ({ principal, params, emu }) => {
      const { env, project } = getEnvironment(emu, principal, params.environmentId);
      return ok(environmentDetailView(env, project));
    },
  },
  {
    method: "DELETE", url: "/v1/environments/:environmentId", scope: "Wp",
    handler: ({ principal, params, emu }) => {
      const { env, project } = getEnvironment(emu, principal, params.environmentId);
      principal.requireAdmin(project.workspaceId);
      deleteEnvironment(emu, env);
      return noContent();
    },
  },
];
