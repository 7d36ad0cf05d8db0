// SecretFile: one file mounted into a service on its next deploy. Its content is always secret.
// Paths are unique per service, so a path change deletes the old file first.
import { z } from "zod";
import { secretFileApi } from "../api/endpoints/services";
import type { V1SecretFile } from "../api/services";
import { checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, findShared, splitFirst, statePart } from "./framework";
import { id } from "./rules";
import { secretFileItem } from "./serviceSchema";

// ---- schemas ----
export const secretFileInputs = z.object({
  serviceId: id("Service the file belongs to. Changing it replaces the file."),
  // The same rules as a Service.secretFiles item.
  path: secretFileItem.shape.path.describe("Path the file is mounted at. Changing it replaces the file."),
  content: secretFileItem.shape.content.describe("File content. Always secret."),
});
export type SecretFileInputs = z.infer<typeof secretFileInputs>;

export const secretFileOutputs = z.object({
  serviceId: z.string().describe("Service the file belongs to."),
  path: z.string().describe("Path the file is mounted at."),
  content: z.string().describe("File content. Always secret."),
  pendingRedeploy: z.boolean().describe("True when the last change needs a deploy of the service to take effect."),
});
export type SecretFileOutputs = z.infer<typeof secretFileOutputs>;

export const SecretFile = defineResource<SecretFileInputs, SecretFileOutputs>({
  token: "cloudplatform:index:SecretFile",
  description: "A secret file mounted into a service on its next deploy; for the first deploy, declare it in Service.secretFiles.",
  inputs: secretFileInputs,
  outputs: secretFileOutputs,
  deleteBeforeReplace: true,
  importId: { format: "<serviceId>:<path>", note: "The same as the id a create gives it." },
  secretOutputs: ["content"],
  inputsOf,

  // ---- check ----
  check: (_olds, news) => checkWith(secretFileInputs, news),

  // ---- diff ----
  diff: (_id, olds, news) => diffWith(olds, news, { update: ["content"], replace: ["serviceId", "path"], deleteBeforeReplace: true }),

  // ---- create ----
  async create(ctx, inputs) {
    const change = await put(ctx, inputs);
    return { id: secretFileId(inputs.serviceId, inputs.path), outs: { ...inputs, pendingRedeploy: change.needsRedeploy } };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const [serviceId, path] = locate(id, olds);
    const f = await findSecretFile(ctx, serviceId, path);
    if (!f) return {};
    // A read-only key sees blanked contents: keep the last known content instead of reporting drift.
    const content = (f.content ?? "") === "" && olds.content !== undefined ? olds.content : (f.content ?? "");
    const outs = { serviceId, path: f.path, content, pendingRedeploy: olds.pendingRedeploy ?? false };
    return { id, props: outs, inputs: inputsOf(outs) };
  },

  // ---- update ----
  async update(ctx, _id, _olds, news) {
    const change = await put(ctx, news);
    return { outs: { ...news, pendingRedeploy: change.needsRedeploy } };
  },

  // ---- delete ----
  async delete(ctx, id, olds) {
    const [serviceId, path] = locate(id, olds);
    await deleteIgnoringNotFound(() =>
      secretFileApi.delete(ctx.client, statePart(serviceId, "serviceId"), statePart(path, "path")),
    );
  },
});

// ---- finders ----
/** One file by path, in a walk reads share; undefined when the service or the file is gone. */
export function findSecretFile(ctx: Context, serviceId: string, path: string): Promise<V1SecretFile | undefined> {
  return findShared(ctx, `secret-files\n${serviceId}`, () => secretFileApi.list(ctx.client, serviceId), (f) => f.path === path);
}

async function put(ctx: Context, i: SecretFileInputs) {
  const change = await secretFileApi.put(ctx.client, i.serviceId, { path: i.path, content: i.content });
  if (change.needsRedeploy) ctx.log(`${i.path}: mounted on the service's next deploy`);
  return change;
}

// ---- mappers ----
export const secretFileId = (serviceId: string, path: string) => `${serviceId}:${path}`;
/** The service and path: from state, or from the id (`<serviceId>:<path>`) when there is none (an import). */
function locate(id: string, olds: { serviceId?: string; path?: string }): [string, string] {
  if (olds.serviceId && olds.path) return [olds.serviceId, olds.path];
  const [serviceId, path] = splitFirst(id, ":");
  if (!serviceId || !path) throw new Error(`SecretFile id '${id}': expected <serviceId>:<path>`);
  return [serviceId, path];
}

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: SecretFileOutputs): SecretFileInputs {
  return ({ serviceId: o.serviceId, path: o.path, content: o.content });
}
