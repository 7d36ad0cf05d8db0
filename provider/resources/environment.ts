// Environment: a named stage of a project. No route renames it, so any change replaces it, and
// the old one goes first because names are unique within a project.
import { z } from "zod";
import { environmentApi } from "../api/endpoints/projects";
import type { V1Environment } from "../api/projects";
import { checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, findOrUndefined } from "./framework";
import { id, name } from "./rules";
import { defineFunction } from "../functions";

// ---- schemas ----
export const environmentInputs = z.object({
  projectId: id("Project the environment belongs to. Changing it replaces the environment."),
  name: name("Environment name, unique within the project. DEV, UAT and PROD (any case) set the tier. Changing it replaces the environment."),
});
export type EnvironmentInputs = z.infer<typeof environmentInputs>;

export const environmentOutputs = z.object({
  projectId: z.string().describe("Project the environment belongs to."),
  name: z.string().describe("Environment name."),
  kind: z.string().nullable().describe("Tier: DEV, UAT or PROD when the name is one of them, else null."),
  isPreview: z.boolean().describe("True for a pull-request preview environment."),
  paused: z.boolean().describe("True while paused on its own."),
  pausedAt: z.string().nullable().describe("When it was paused."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
  updatedAt: z.string().nullable().describe("Last change (ISO 8601)."),
});
export type EnvironmentOutputs = z.infer<typeof environmentOutputs>;

export const Environment = defineResource<EnvironmentInputs, EnvironmentOutputs>({
  token: "cloudplatform:index:Environment",
  description: "An environment of a project (for example production or staging).",
  inputs: environmentInputs,
  outputs: environmentOutputs,
  deleteBeforeReplace: true,
  importId: { format: "<environmentId>" },
  inputsOf,

  // ---- check ----
  check: (_olds, news) => checkWith(environmentInputs, news),

  // ---- diff ----
  diff: (_id, olds, news) => diffWith(olds, news, { replace: ["projectId", "name"], deleteBeforeReplace: true }),

  // ---- create ----
  async create(ctx, inputs) {
    const created = await environmentApi.create(ctx.client, inputs.projectId, { name: inputs.name }, {
      own: true, exists: async (made) => !!(await findEnvironment(ctx, made.id)),
    });
    // The create response's shape is not given by the spec; read the detail back for the tier.
    const env = (await findEnvironment(ctx, created.id)) ?? created;
    return { id: env.id, outs: toOutputs(env) };
  },

  // ---- read ----
  async read(ctx, id) {
    const env = await findEnvironment(ctx, id);
    if (!env) return {};
    const outs = toOutputs(env);
    return { id, props: outs, inputs: inputsOf(outs) };
  },

  // ---- delete ----
  async delete(ctx, id) {
    await deleteIgnoringNotFound(() => environmentApi.delete(ctx.client, id));
  },
});

// ---- finders ----
export function findEnvironment(ctx: Context, id: string): Promise<V1Environment | undefined> {
  return findOrUndefined(() => environmentApi.get(ctx.client, id));
}

// ---- mappers ----
function toOutputs(e: V1Environment): EnvironmentOutputs {
  return {
    projectId: e.projectId,
    name: e.name,
    kind: e.kind ?? null,
    isPreview: e.isPreview,
    paused: e.paused,
    pausedAt: e.pausedAt ?? null,
    createdAt: e.createdAt ?? null,
    updatedAt: e.updatedAt ?? null,
  };
}

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: EnvironmentOutputs): EnvironmentInputs {
  return ({ projectId: o.projectId, name: o.name });
}

// ---- functions ----
export const getEnvironment = defineFunction<{ environmentId: string }>("getEnvironment", {
  token: "cloudplatform:index:getEnvironment",
  description: "Looks up an environment by id.",
  inputs: z.object({ environmentId: id("The environment's id.") }),
  outputs: environmentOutputs.extend({ id: z.string().describe("The environment's id.") }),
  async invoke(ctx, args) {
    const e = await findEnvironment(ctx, args.environmentId);
    if (!e) throw new Error(`getEnvironment: no environment ${args.environmentId}`);
    return { id: e.id, ...toOutputs(e) };
  },
});
