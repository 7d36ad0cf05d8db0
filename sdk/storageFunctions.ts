// getBucket and getStorageAccessKeys, with their Output forms.
import { V1StorageAccessKey, V1StorageBucket } from "../provider/api/storage";
import { bucketsPath, readCors, readPolicy } from "../provider/resources/bucket";
import { canonicalPolicy, normaliseRules } from "../provider/resources/bucketRules";
import { functionContext, outputForm } from "./functions";
import type { GetBucketArgs, GetBucketResult, GetStorageAccessKeysArgs, GetStorageAccessKeysResult } from "./types";

/** Looks up a bucket by name and region: its endpoint, public address, visibility, CORS rules and policy. */
export async function getBucket(args: GetBucketArgs): Promise<GetBucketResult> {
  const ctx = functionContext();
  const workspaceId = args.workspaceId ?? (await ctx.workspaceId());
  const all = await ctx.client.list(bucketsPath(workspaceId), { query: { region: args.region }, item: V1StorageBucket });
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
}
export const getBucketOutput = outputForm(getBucket);

/** Lists the workspace's storage access keys: ids only, never secrets. */
export async function getStorageAccessKeys(args: GetStorageAccessKeysArgs = {}): Promise<GetStorageAccessKeysResult> {
  const ctx = functionContext();
  const workspaceId = args.workspaceId ?? (await ctx.workspaceId());
  const keys = await ctx.client.list(`/v1/workspaces/${encodeURIComponent(workspaceId)}/storage/access-keys`, { item: V1StorageAccessKey });
  return {
    keys: keys.map((k) => ({ id: k.id, name: k.name ?? null, accessKeyId: k.accessKeyId, createdAt: k.createdAt ?? null, updatedAt: k.updatedAt ?? null })),
  };
}
export const getStorageAccessKeysOutput = outputForm(getStorageAccessKeys);
