// Project and environment endpoints (infrastructure routes §4.2).
import { V1Environment, V1Project, V1Workspace } from "../projects";
import { type Client, type CreateOptions, seg } from "./endpoint";

export interface ProjectCreateBody { name: string; displayName?: string; description?: string; region?: string }
/** A null clears displayName or description. */
export interface ProjectPatchBody { name?: string; displayName?: string | null; description?: string | null }

const project = (id: string) => `/v1/projects/${seg(id)}`;

export const workspaceApi = {
  /** The workspaces the key reaches. */
  list: (c: Client) => c.list("/v1/workspaces", { item: V1Workspace }),
};

export const projectApi = {
  get: (c: Client, id: string) => c.get(project(id), { schema: V1Project }),
  list: (c: Client, workspaceId: string) => c.list(`/v1/workspaces/${seg(workspaceId)}/projects`, { item: V1Project }),
  create: (c: Client, workspaceId: string, body: ProjectCreateBody, opts: CreateOptions<V1Project> = {}) =>
    c.create(`/v1/workspaces/${seg(workspaceId)}/projects`, body, { schema: V1Project, ...opts }),
  patch: (c: Client, id: string, body: ProjectPatchBody) => c.patch(project(id), body, { schema: V1Project }),
  delete: (c: Client, id: string) => c.delete(project(id)),
};

export const environmentApi = {
  get: (c: Client, id: string) => c.get(`/v1/environments/${seg(id)}`, { schema: V1Environment }),
  list: (c: Client, projectId: string) => c.list(`${project(projectId)}/environments`, { item: V1Environment }),
  create: (c: Client, projectId: string, body: { name: string }, opts: CreateOptions<V1Environment> = {}) =>
    c.create(`${project(projectId)}/environments`, body, { schema: V1Environment, ...opts }),
  delete: (c: Client, id: string) => c.delete(`/v1/environments/${seg(id)}`),
};
