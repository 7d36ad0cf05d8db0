// Suppression: an address the platform never mails (conventions §2.7, §4.8). `reason` is set by the
// platform and refused on creation; a complaint suppression cannot be deleted (409), and deleting
// one fails with an explanation of what to do instead.
import { z } from "zod";
import { ConflictError } from "../client";
import { suppressionApi } from "../api/endpoints/mail";
import type { V1Suppression } from "../api/mail";
import { checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, isImport } from "./framework";
import { id } from "./rules";

// ---- schemas ----
export const suppressionInputs = z.object({
  address: z
    .string({ error: "must be an email address" })
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.email({ error: "must be an email address" }))
    .describe("The address never to mail. Case is ignored. Changing it replaces the suppression."),
  workspaceId: id("Workspace of the suppression list. Defaults to cloudplatform:workspaceId, or the only workspace the key reaches. Changing it replaces the suppression.").optional(),
});
export type SuppressionInputs = z.infer<typeof suppressionInputs>;

export const suppressionOutputs = z.object({
  address: z.string().describe("The suppressed address."),
  reason: z.string().nullable().describe("Why it is suppressed (manual for suppressions added through the API)."),
  workspaceId: z.string().nullable().describe("Workspace of the suppression list; null only in state written before the provider recorded it (the key's own workspace)."),
  createdAt: z.string().nullable().describe("When it was suppressed."),
});
export type SuppressionOutputs = z.infer<typeof suppressionOutputs>;

export const Suppression = defineResource<SuppressionInputs, SuppressionOutputs>({
  token: "cloudplatform:index:Suppression",
  description: "An address on the workspace's suppression list: the platform never mails it.",
  inputs: suppressionInputs,
  outputs: suppressionOutputs,
  deleteBeforeReplace: true,
  importId: { format: "<workspaceId>/<address>", note: "A bare `<address>` is looked up in the configured workspace. The resource's id in state is the address." },
  inputsOf,

  // ---- check ----
  check(_olds, news) {
    if ("reason" in news) {
      return { failures: [{ property: "reason", reason: "reason: is never accepted; the platform sets it (suppressions added through the API are manual). Remove it." }] };
    }
    return checkWith(suppressionInputs, news);
  },

  // ---- diff ----
  diff: (_id, olds, news) => diffWith(olds, news, { replace: ["address", "workspaceId"], defaulted: ["workspaceId"] }),

  // ---- create ----
  async create(ctx, inputs) {
    const workspaceId = inputs.workspaceId ?? (await ctx.workspaceId());
    const s = await suppressionApi.create(ctx.client, workspaceId, inputs.address);
    return { id: s.address, outs: toOutputs(s, workspaceId) };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const [fromId, address] = splitId(id);
    // State from before the workspace was recorded holds null: the key's own workspace, where
    // that create put it (no workspaceId sent). An import names one, or takes the configured one.
    const ws = isImport(olds) ? (fromId ?? (await ctx.workspaceId())) : (olds.workspaceId ?? undefined);
    const s = await findSuppression(ctx, olds.address ?? address, ws);
    if (!s) return {};
    const outs = toOutputs(s, ws);
    return { id: outs.address, props: outs, inputs: inputsOf(outs) };
  },

  // ---- delete ----
  async delete(ctx, id, olds) {
    const [fromId, address] = splitId(id);
    // Without a workspace (older state), no workspaceId is sent: the key's own, where the create put it.
    try {
      await deleteIgnoringNotFound(() =>
        suppressionApi.delete(ctx.client, olds.workspaceId ?? fromId, olds.address ?? address),
      );
    } catch (err) {
      if (err instanceof ConflictError) {
        throw new Error(
          `cannot delete the suppression of ${olds.address ?? id}: the recipient complained (marked a message as spam), and the platform never lifts a complaint suppression (409). ` +
            "Keep the resource, or stop managing it without deleting it: `pulumi state delete <urn>`, or set `retainOnDelete: true` on it before removing it from the program.",
        );
      }
      throw err;
    }
  },
});

// ---- finders ----
export async function findSuppression(ctx: Context, address: string, workspaceId?: string): Promise<V1Suppression | undefined> {
  const wanted = address.toLowerCase();
  for await (const s of suppressionApi.each(ctx.client, workspaceId)) {
    if (s.address.toLowerCase() === wanted) return s;
  }
  return undefined;
}

// ---- mappers ----
/** `<workspaceId>/<address>` or a bare address (an address may hold '/', a workspace id never '@'). */
function splitId(id: string): [string | undefined, string] {
  const m = /^([^/@]+)\/(.+@.+)$/.exec(id);
  return m ? [m[1], m[2]] : [undefined, id];
}

function toOutputs(s: V1Suppression, workspaceId?: string): SuppressionOutputs {
  return { address: s.address.toLowerCase(), reason: s.reason ?? null, workspaceId: workspaceId ?? null, createdAt: s.createdAt ?? null };
}

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: SuppressionOutputs): SuppressionInputs {
  return ({ address: o.address });
}
