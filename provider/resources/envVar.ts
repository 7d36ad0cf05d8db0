// EnvVar: one key on a service, owned by this resource alone. Keys are unique per service, so a
// key change deletes the old variable before creating the new one, and a create refuses a key
// that already exists (declare it in one place only, or import it).
import { z } from "zod";
import { envVarApi } from "../api/endpoints/services";
import { checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, splitFirst, statePart } from "./framework";
import { findEnvVar } from "./serviceConfig";
import { id } from "./rules";
import { envVarItem } from "./serviceSchema";

// ---- schemas ----
export const envVarInputs = z.object({
  serviceId: id("Service the variable belongs to. Changing it replaces the variable."),
  // The same rules as a Service.envVars item.
  ...envVarItem.shape,
  key: envVarItem.shape.key.describe("Variable name. Changing it replaces the variable (the old key is deleted first)."),
});
export type EnvVarInputs = z.infer<typeof envVarInputs>;

export const envVarOutputs = z.object({
  serviceId: z.string().describe("Service the variable belongs to."),
  key: z.string().describe("Variable name."),
  value: z.string().describe("Value. Always secret."),
  scope: z.string().describe("Environment tier the variable applies in."),
  secret: z.boolean().describe("Hidden from read-only members."),
  pendingRedeploy: z.boolean().describe("True when the last change needs a deploy of the service to take effect."),
});
export type EnvVarOutputs = z.infer<typeof envVarOutputs>;

export const EnvVar = defineResource<EnvVarInputs, EnvVarOutputs>({
  token: "cloudplatform:index:EnvVar",
  description: "One environment variable of a service. It applies on the service's next deploy; for the first deploy, declare it in Service.envVars.",
  inputs: envVarInputs,
  outputs: envVarOutputs,
  deleteBeforeReplace: true,
  importId: { format: "<serviceId>/<key>", note: "The same as the id a create gives it." },
  secretOutputs: ["value"],
  inputsOf,

  // ---- check ----
  check(_olds, news) {
    const r = checkWith<EnvVarInputs>(envVarInputs, news);
    if (r.inputs) r.inputs = { ...r.inputs, scope: r.inputs.scope ?? "ALL", secret: r.inputs.secret ?? false };
    return r;
  },

  // ---- diff ----
  diff: (_id, olds, news) => diffWith(olds, news, { update: ["value", "scope", "secret"], replace: ["serviceId", "key"], deleteBeforeReplace: true }),

  // ---- create ----
  async create(ctx, inputs) {
    const existing = await findEnvVar(ctx, inputs.serviceId, inputs.key, { fresh: true });
    if (existing) {
      throw new Error(
        `${inputs.key} already exists on service ${inputs.serviceId}${existing.linked ? " (linked from a database)" : ""}; ` +
          "a key is owned by one declaration: remove it from Service.envVars or from the other EnvVar, then run `pulumi up` again " +
          `(or adopt the key with the native SDK: \`pulumi import cloudplatform:index:EnvVar <name> ${envVarId(inputs.serviceId, inputs.key)}\`)`,
      );
    }
    const change = await upsert(ctx, inputs);
    return { id: envVarId(inputs.serviceId, inputs.key), outs: toOutputs(inputs, change.needsRedeploy) };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const [serviceId, key] = locate(id, olds);
    const v = await findEnvVar(ctx, serviceId, key);
    if (!v || v.linked) return {};
    // A read-only key sees a blanked secret: keep the last known value instead of reporting drift.
    const value = v.secret && (v.value ?? "") === "" && olds.value ? olds.value : (v.value ?? "");
    const outs = toOutputs({ serviceId, key, value, scope: v.scope as EnvVarInputs["scope"], secret: v.secret }, olds.pendingRedeploy ?? false);
    return { id, props: outs, inputs: inputsOf(outs) };
  },

  // ---- update ----
  async update(ctx, _id, _olds, news) {
    const change = await upsert(ctx, news);
    return { outs: toOutputs(news, change.needsRedeploy) };
  },

  // ---- delete ----
  async delete(ctx, id, olds) {
    const [serviceId, key] = locate(id, olds);
    await deleteIgnoringNotFound(async () => {
      await envVarApi.delete(ctx.client, statePart(serviceId, "serviceId"), statePart(key, "key"));
    });
  },
});

// ---- finders: findEnvVar (serviceConfig.ts) ----
async function upsert(ctx: Context, i: EnvVarInputs) {
  const change = await envVarApi.upsert(ctx.client, i.serviceId, [{ key: i.key, value: i.value, scope: i.scope ?? "ALL", secret: i.secret ?? false }]);
  for (const w of change.warnings) ctx.log(`${i.key}: ${w}`);
  if (change.needsRedeploy) ctx.log(`${i.key}: applies on the service's next deploy`);
  return change;
}

// ---- mappers ----
export const envVarId = (serviceId: string, key: string) => `${serviceId}/${key}`;
/** The service and key: from state, or from the id (`<serviceId>/<key>`) when there is none (an import). */
function locate(id: string, olds: { serviceId?: string; key?: string }): [string, string] {
  if (olds.serviceId && olds.key) return [olds.serviceId, olds.key];
  const [serviceId, key] = splitFirst(id);
  if (!serviceId || !key) throw new Error(`EnvVar id '${id}': expected <serviceId>/<key>`);
  return [serviceId, key];
}

function toOutputs(i: EnvVarInputs, pendingRedeploy: boolean): EnvVarOutputs {
  return { serviceId: i.serviceId, key: i.key, value: i.value, scope: i.scope ?? "ALL", secret: i.secret ?? false, pendingRedeploy };
}

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: EnvVarOutputs): EnvVarInputs {
  return ({ serviceId: o.serviceId, key: o.key, value: o.value, scope: o.scope as EnvVarInputs["scope"], secret: o.secret });
}
