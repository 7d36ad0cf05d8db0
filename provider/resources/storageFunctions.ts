// getBucket and getStorageAccessKeys: described for schema.json and run by both adapters.
import { z } from "zod";
import { accessKeyApi, bucketApi } from "../api/endpoints/storage";
import { defineFunction } from "../functions";
import { bucketOutputs, readCors, readPolicy } from "./bucket";
import { canonicalPolicy, normaliseRules } from "./bucketRules";

export const getBucket = defineFunction<{ name: string; region?: string; workspaceId?: string }>("getBucket", {
  token: "cloudplatform:index:getBucket",
  description: "Looks up a bucket by name and region: its endpoint, public address, visibility, CORS rules and policy.",
  inputs: z.object({
    name: z.string().describe("The bucket's name."),
    region: z.string().describe("The bucket's region. Defaults to the workspace's.").optional(),
    workspaceId: z.string().describe("Defaults to cloudplatform:workspaceId, or the only workspace the key reaches.").optional(),
  }),
  outputs: bucketOutputs.omit({ forceDestroy: true }).extend({ id: z.string().describe("The bucket's name.") }),
  async invoke(ctx, args) {
    const workspaceId = args.workspaceId ?? (await ctx.workspaceId());
    const all = await bucketApi.list(ctx.client, workspaceId, args.region);
    const b = all.find((x) => x.name === args.name);
    if (!b) throw new Error(`getBucket: no bucket named ${args.name} in ${args.region ? `region ${args.region}` : "the workspace's default region"} of workspace ${workspaceId}`);
    const loc = { workspaceId, region: b.region ?? args.region ?? "" };
    const policy = await readPolicy(ctx, loc, b.name);
    return {
      id: b.name,
      name: b.name,
      region: loc.region,
      visibility: b.visibility ?? null,
      workspaceId,
      corsRules: normaliseRules(await readCors(ctx, loc, b.name)),
      policy: canonicalPolicy(policy),
      endpoint: b.endpoint ?? null,
      publicBaseUrl: b.publicBaseUrl ?? null,
      createdAt: b.createdAt ?? null,
    };
  },
});

export const getStorageAccessKeys = defineFunction<{ workspaceId?: string }>("getStorageAccessKeys", {
  token: "cloudplatform:index:getStorageAccessKeys",
  description: "Lists the workspace's storage access keys: ids only, never secrets.",
  inputs: z.object({
    workspaceId: z.string().describe("Defaults to cloudplatform:workspaceId, or the only workspace the key reaches.").optional(),
  }),
  outputs: z.object({
    keys: z.array(z.object({
      id: z.string().describe("The key's id."),
      name: z.string().nullable().describe("What the key is for."),
      accessKeyId: z.string().describe("The access key id (safe to show; the secret is never returned)."),
      createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
      updatedAt: z.string().nullable().describe("Last change (ISO 8601)."),
    }).meta({ typeName: "StorageAccessKey" })).describe("The keys, as the API lists them."),
  }),
  async invoke(ctx, args) {
    const workspaceId = args.workspaceId ?? (await ctx.workspaceId());
    const keys = await accessKeyApi.list(ctx.client, workspaceId);
    return {
      keys: keys.map((k) => ({ id: k.id, name: k.name ?? null, accessKeyId: k.accessKeyId, createdAt: k.createdAt ?? null, updatedAt: k.updatedAt ?? null })),
    };
  },
});
