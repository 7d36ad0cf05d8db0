// Project: a workspace's top-level grouping of environments (infrastructure routes §2.2, §4.2).
import { z } from "zod";
import { type ProjectPatchBody, projectApi } from "../api/endpoints/projects";
import type { V1Project } from "../api/projects";
import {
  checkWith, compact, type Context, defineResource, deleteIgnoringNotFound, diffWith, findOrUndefined,
} from "./framework";
import { id, name, regionKey, text } from "./rules";
import { defineFunction } from "../functions";

// ---- schemas ----
export const projectInputs = z.object({
  name: name("Project name; unique names are not required. Changing it renames in place."),
  displayName: text(128, "Name shown in the dashboard.").optional(),
  description: text(1024, "Free text.").optional(),
  region: regionKey.describe("Region key new services are placed in unless they name another. Changing it replaces the project.").optional(),
  workspaceId: id("Workspace to create the project in. Defaults to cloudplatform:workspaceId, or the only workspace the key reaches. Changing it replaces the project.").optional(),
});
export type ProjectInputs = z.infer<typeof projectInputs>;

export const projectOutputs = z.object({
  name: z.string().describe("Project name."),
  displayName: z.string().nullable().describe("Name shown in the dashboard."),
  description: z.string().nullable().describe("Free text."),
  region: z.string().nullable().describe("Region key new services default to (the API's defaultRegion)."),
  workspaceId: z.string().describe("Workspace that owns the project."),
  paused: z.boolean().describe("True while the project is paused."),
  pausedAt: z.string().nullable().describe("When the project was paused."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
  updatedAt: z.string().nullable().describe("Last change (ISO 8601)."),
});
export type ProjectOutputs = z.infer<typeof projectOutputs>;

const DIFF = {
  update: ["name", "displayName", "description"],
  replace: ["region", "workspaceId"],
  defaulted: ["region", "workspaceId"],
};

export const Project = defineResource<ProjectInputs, ProjectOutputs>({
  token: "cloudplatform:index:Project",
  description: "A project: the container for environments and, through them, services.",
  inputs: projectInputs,
  outputs: projectOutputs,
  stableOutputs: ["paused", "pausedAt", "createdAt"],
  deleteBeforeReplace: true,
  importId: { format: "<projectId>" },
  inputsOf: (o) => toInputs(o),

  // ---- check ----
  check: (_olds, news) => checkWith(projectInputs, news),

  // ---- diff ----
  diff: (_id, olds, news) => diffWith(olds, news, DIFF),

  // ---- create ----
  async create(ctx, inputs) {
    const workspaceId = inputs.workspaceId ?? (await ctx.workspaceId());
    const p = await projectApi.create(
      ctx.client, workspaceId,
      compact({ name: inputs.name, displayName: inputs.displayName, description: inputs.description, region: inputs.region }),
      { own: true, exists: async (made) => !!(await findProject(ctx, made.id)) },
    );
    return { id: p.id, outs: toOutputs(p) };
  },

  // ---- read ----
  async read(ctx, id) {
    const p = await findProject(ctx, id);
    if (!p) return {};
    const outs = toOutputs(p);
    return { id, props: outs, inputs: toInputs(outs) };
  },

  // ---- update ----
  async update(ctx, id, olds, news) {
    const body: ProjectPatchBody = {};
    if (olds.name !== news.name) body.name = news.name;
    if ((olds.displayName ?? null) !== (news.displayName ?? null)) body.displayName = news.displayName ?? null;
    if ((olds.description ?? null) !== (news.description ?? null)) body.description = news.description ?? null;
    const p = await projectApi.patch(ctx.client, id, body);
    return { outs: toOutputs(p) };
  },

  // ---- delete ----
  async delete(ctx, id) {
    await deleteIgnoringNotFound(() => projectApi.delete(ctx.client, id));
  },
});

// ---- finders ----
export function findProject(ctx: Context, id: string): Promise<V1Project | undefined> {
  return findOrUndefined(() => projectApi.get(ctx.client, id));
}

// ---- mappers ----
function toOutputs(p: V1Project): ProjectOutputs {
  return {
    name: p.name,
    displayName: p.displayName ?? null,
    description: p.description ?? null,
    region: p.defaultRegion ?? null,
    workspaceId: p.workspaceId,
    paused: p.paused,
    pausedAt: p.pausedAt ?? null,
    createdAt: p.createdAt ?? null,
    updatedAt: p.updatedAt ?? null,
  };
}

/** region and workspaceId are left out: no route changes them, and the program may not set them. */
function toInputs(o: ProjectOutputs): ProjectInputs {
  return compact({ name: o.name, displayName: o.displayName ?? undefined, description: o.description ?? undefined });
}

// ---- functions ----
export const getProject = defineFunction<{ projectId: string }>("getProject", {
  token: "cloudplatform:index:getProject",
  description: "Looks up a project by id.",
  inputs: z.object({ projectId: id("The project's id.") }),
  outputs: projectOutputs.extend({ id: z.string().describe("The project's id.") }),
  async invoke(ctx, args) {
    const p = await findProject(ctx, args.projectId);
    if (!p) throw new Error(`getProject: no project ${args.projectId}`);
    return { id: p.id, ...toOutputs(p) };
  },
});
