// Projects and environments (infrastructure routes §2.2, §4.2).
import { z } from "zod";
import type { Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { badRequest, conflict, notFound } from "../errors";
import { newId } from "../store";
import { findRegion, REGIONS } from "./catalogue";

export interface Project {
  id: string;
  workspaceId: string;
  name: string;
  displayName: string | null;
  description: string | null;
  defaultRegion: string | null;
  paused: boolean;
  pausedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Environment {
  id: string;
  projectId: string;
  name: string;
  isPreview: boolean;
  paused: boolean;
  pausedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Names: 1 to 64 characters, starting with a letter or digit; letters, digits, space, `.`, `_`, `-`. */
export const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
/** The name rule of projects, environments and services. */
export const nameField = z.string().regex(NAME_RULE, "must be 1 to 64 characters: letters, digits, spaces, '.', '_' or '-', starting with a letter or digit");
const optionalText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullable().optional();

export const createProjectBody = z.object({
  name: nameField,
  displayName: optionalText(128),
  description: optionalText(1024),
  region: z.string().optional(),
});
export const patchProjectBody = z.strictObject({
  name: nameField.optional(),
  displayName: optionalText(128),
  description: optionalText(1024),
});
export const createEnvironmentBody = z.object({ name: nameField });

export const projects = (emu: Emu) => emu.store.table<Project>("projects");
export const environments = (emu: Emu) => emu.store.table<Environment>("environments");
/** A workspace's projects and a project's environments, in the order they were made. */
export const projectsByWorkspace = (emu: Emu) => projects(emu).index("workspace", { group: (p) => p.workspaceId });
export const environmentsByProject = (emu: Emu) => environments(emu).index("project", { group: (e) => e.projectId });

export function checkRegion(region: string | undefined): void {
  if (region !== undefined && !findRegion(region)) {
    throw badRequest(`region: unknown region key '${region}'; known keys: ${REGIONS.map((r) => r.region).join(", ")}`);
  }
}

export function createProject(emu: Emu, ws: Workspace, input: z.infer<typeof createProjectBody>): Project {
  checkRegion(input.region);
  const now = emu.now();
  return projects(emu).insert({
    id: newId(),
    workspaceId: ws.id,
    name: input.name,
    displayName: input.displayName || null,
    description: input.description || null,
    defaultRegion: input.region ?? ws.defaultRegion,
    paused: false,
    pausedAt: null,
    createdAt: now,
    updatedAt: now,
  });
}

/** The project, if the caller's key reaches its workspace; otherwise 404, as for a missing one. */
export function getProject(emu: Emu, who: Principal, id: string): Project {
  const p = projects(emu).get(id);
  if (!p || !who.canSee(p.workspaceId)) throw notFound("Project", id);
  return p;
}

/** By id, whichever workspace owns it (the dashboard sees every workspace). */
export const findProject = (emu: Emu, id: string): Project | undefined => projects(emu).get(id);
export const findEnvironment = (emu: Emu, id: string): Environment | undefined => environments(emu).get(id);

export function listProjects(emu: Emu, ws: Workspace): Project[] {
  return projectsByWorkspace(emu).list(ws.id).reverse();
}

export function patchProject(emu: Emu, p: Project, input: z.infer<typeof patchProjectBody>): Project {
  const patch: Partial<Project> = { updatedAt: emu.now() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.displayName !== undefined) patch.displayName = input.displayName || null;
  if (input.description !== undefined) patch.description = input.description || null;
  return projects(emu).update(p.id, patch);
}

export function environmentsOf(emu: Emu, projectId: string): Environment[] {
  return environmentsByProject(emu).list(projectId);
}

export function createEnvironment(emu: Emu, p: Project, input: z.infer<typeof createEnvironmentBody>): Environment {
  const clash = environmentsOf(emu, p.id).find((e) => e.name.toLowerCase() === input.name.toLowerCase());
  if (clash) throw conflict(`name: project ${p.id} already has an environment named '${clash.name}'`);
  const now = emu.now();
  return environments(emu).insert({
    id: newId(), projectId: p.id, name: input.name, isPreview: false, paused: false, pausedAt: null, createdAt: now, updatedAt: now,
  });
}

export function getEnvironment(emu: Emu, who: Principal, id: string): { env: Environment; project: Project } {
  const env = environments(emu).get(id);
  const project = env && projects(emu).get(env.projectId);
  if (!env || !project || !who.canSee(project.workspaceId)) throw notFound("Environment", id);
  return { env, project };
}

export function environmentKind(name: string): "DEV" | "UAT" | "PROD" | null {
  const upper = name.toUpperCase();
  return upper === "DEV" || upper === "UAT" || upper === "PROD" ? upper : null;
}

export const projectView = (p: Project, envs?: Environment[]) => ({
  id: p.id,
  workspaceId: p.workspaceId,
  name: p.name,
  displayName: p.displayName,
  description: p.description,
  defaultRegion: p.defaultRegion,
  paused: p.paused,
  pausedAt: p.pausedAt,
  ...(envs ? { environments: envs.map(environmentView) } : {}),
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

export const environmentView = (e: Environment) => ({
  id: e.id,
  projectId: e.projectId,
  name: e.name,
  isPreview: e.isPreview,
  paused: e.paused,
  pausedAt: e.pausedAt,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

export const environmentDetailView = (e: Environment, p: Project) => ({
  ...environmentView(e),
  kind: environmentKind(e.name),
  project: { id: p.id, workspaceId: p.workspaceId, name: p.name },
});
