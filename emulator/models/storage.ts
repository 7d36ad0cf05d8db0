// Object storage (infrastructure routes §2.6, §4.8): buckets with their CORS rules and access
// policy, and the workspace's storage access keys (the objects are in objects.ts). Bucket names are unique
// across the whole service; every bucket route resolves the bucket in one region (the `region`
// query, else the workspace default), so a bucket looked up in another region is not found.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Workspace } from "../auth";
import type { Emu } from "../emu";
import { badRequest, conflict, notFound } from "../errors";
import { baseUrlOf } from "../loopback";
import type { Store } from "../store";
import { newId } from "../store";
import { deleteContents, objectCount } from "./objects";
import { checkRegion } from "./projects";

export interface Bucket {
  id: string;
  workspaceId: string;
  name: string;
  region: string;
  visibility: "PRIVATE" | "PUBLIC_READ";
  createdAt: string;
}

export interface CorsRule {
  allowedMethods: string[];
  allowedOrigins: string[];
  allowedHeaders: string[] | null;
  exposeHeaders: string[] | null;
  maxAgeSeconds: number | null;
}
interface CorsRow extends CorsRule {
  id: string;
  bucketId: string;
  position: number;
}
interface PolicyRow {
  id: string;
  policy: string;
  updatedAt: string;
}
export interface StorageAccessKey {
  id: string;
  workspaceId: string;
  name: string;
  accessKeyId: string;
  secret: string;
  createdAt: string;
  updatedAt: string;
}

// ---- bodies ----
export const BUCKET_NAME = /^[a-z0-9.-]{3,63}$/;
export const createBucketBody = z.object({
  name: z.string().regex(BUCKET_NAME, "must be 3 to 63 characters: lowercase letters, digits, '.' and '-'"),
  visibility: z.enum(["PRIVATE", "PUBLIC_READ"], { error: "must be PRIVATE or PUBLIC_READ" }).optional(),
});

export const CORS_METHODS = ["GET", "PUT", "POST", "DELETE", "HEAD"] as const;
/** Longest origin or header pattern, and most entries in one list: each is matched on every browser request. */
export const CORS_PATTERN_MAX = 256;
export const CORS_LIST_MAX = 100;
/** An origin or header pattern: as in S3, at most one `*` (any run of characters). */
const corsPattern = z.string().min(1, "must not be empty").max(CORS_PATTERN_MAX, `must be at most ${CORS_PATTERN_MAX} characters`)
  .superRefine((p, ctx) => {
    const stars = p.split("*").length - 1;
    if (stars > 1) ctx.addIssue({ code: "custom", message: `may hold at most one '*' wildcard, as in S3 (this one has ${stars})` });
  });
const corsList = <T extends z.ZodType>(item: T) => z.array(item).max(CORS_LIST_MAX, `must list at most ${CORS_LIST_MAX} entries`);
const corsRule = z.strictObject({
  allowedMethods: z.array(z.enum(CORS_METHODS, { error: `must be one of ${CORS_METHODS.join(", ")}` })).min(1, "must list at least one method"),
  allowedOrigins: corsList(corsPattern).min(1, "must list at least one origin"),
  allowedHeaders: corsList(corsPattern).nullish(),
  exposeHeaders: corsList(z.string().max(CORS_PATTERN_MAX, `must be at most ${CORS_PATTERN_MAX} characters`)).nullish(),
  maxAgeSeconds: z.number().int("must be an integer").min(0, "must not be negative").nullish(),
});
/** The PUT body is not shown in the spec: `{rules: [...]}`, or a bare array of rules. */
export const putCorsBody = z.strictObject({ rules: z.array(corsRule).max(100, "at most 100 rules") });
export const putPolicyBody = z.strictObject({ policy: z.string({ error: "must be a string holding a JSON document" }) });

const buckets = (emu: Emu) => emu.store.table<Bucket>("buckets");
const corsRows = (emu: Emu) => emu.store.table<CorsRow>("bucketCorsRules");
/** Bucket names are unique across the service; a workspace's buckets. */
const bucketsByName = (emu: Emu) => buckets(emu).index("name", { group: (b) => b.name });
const bucketsByWorkspace = (emu: Emu) => buckets(emu).index("workspace", { group: (b) => b.workspaceId });
const policies = (emu: Emu) => emu.store.table<PolicyRow>("bucketPolicies");
const accessKeys = (store: Store) => store.table<StorageAccessKey>("storageAccessKeys");

// ---- buckets ----
/** The region a bucket route works in: the `region` query, else the workspace default. */
export function bucketRegion(emu: Emu, ws: Workspace, query: Record<string, unknown>): string {
  const region = typeof query.region === "string" && query.region !== "" ? query.region : undefined;
  checkRegion(region);
  return region ?? ws.defaultRegion ?? emu.settings.defaultRegion;
}

export function createBucket(emu: Emu, ws: Workspace, region: string, input: z.infer<typeof createBucketBody>): Bucket {
  const held = bucketNamed(emu, input.name);
  if (held && held.workspaceId === ws.id) {
    throw conflict(`name: a bucket named '${input.name}' already exists in this workspace (region ${held.region})`);
  }
  if (held) {
    throw conflict(`name: the bucket name '${input.name}' is taken by another workspace; bucket names are unique across the whole service, so choose another`);
  }
  return buckets(emu).insert({
    id: newId(), workspaceId: ws.id, name: input.name, region, visibility: input.visibility ?? "PRIVATE", createdAt: emu.now(),
  });
}

export function listBuckets(emu: Emu, ws: Workspace, region: string): Bucket[] {
  return bucketsByWorkspace(emu).list(ws.id).filter((b) => b.region === region).sort((a, b) => a.name.localeCompare(b.name));
}

/** Every bucket of a workspace, in all regions, by name. */
export const bucketsOf = (emu: Emu, workspaceId: string): Bucket[] =>
  bucketsByWorkspace(emu).list(workspaceId).sort((a, b) => a.name.localeCompare(b.name));
/** By id, whichever workspace owns it (the dashboard sees every workspace). */
export const findBucket = (emu: Emu, id: string): Bucket | undefined => buckets(emu).get(id);

/** The bucket of that name, whichever workspace and region hold it (names are unique across the service). */
export function bucketNamed(emu: Emu, name: string): Bucket | undefined {
  return bucketsByName(emu).list(name)[0];
}

/** The workspace's bucket in that region; 404 otherwise (another region or workspace included). */
export function getBucket(emu: Emu, ws: Workspace, region: string, name: string): Bucket {
  const b = bucketsByName(emu).list(name).find((x) => x.workspaceId === ws.id && x.region === region);
  if (!b) throw notFound("Bucket", `'${name}' in region ${region}`);
  return b;
}

export function deleteBucket(emu: Emu, b: Bucket, force: boolean): void {
  const held = objectCount(emu, b.id);
  if (held > 0 && !force) {
    throw conflict(`Bucket '${b.name}' holds ${held} object${held === 1 ? "" : "s"}; delete them first, or pass force=true to delete the bucket and its objects`);
  }
  deleteContents(emu, b.id);
  for (const r of corsRows(emu).where((r) => r.bucketId === b.id)) corsRows(emu).delete(r.id);
  policies(emu).delete(b.id);
  buckets(emu).delete(b.id);
}

// ---- CORS ----
export function corsOf(emu: Emu, b: Bucket): CorsRule[] {
  return corsRows(emu).where((r) => r.bucketId === b.id).sort((x, y) => x.position - y.position).map(corsView);
}

export function putCors(emu: Emu, b: Bucket, rules: z.infer<typeof putCorsBody>["rules"]): void {
  deleteCors(emu, b);
  rules.forEach((r, position) =>
    corsRows(emu).insert({
      id: newId(), bucketId: b.id, position,
      allowedMethods: r.allowedMethods, allowedOrigins: r.allowedOrigins,
      allowedHeaders: r.allowedHeaders ?? null, exposeHeaders: r.exposeHeaders ?? null, maxAgeSeconds: r.maxAgeSeconds ?? null,
    }),
  );
}

export function deleteCors(emu: Emu, b: Bucket): void {
  for (const r of corsRows(emu).where((r) => r.bucketId === b.id)) corsRows(emu).delete(r.id);
}

// ---- policy ----
export function policyOf(emu: Emu, b: Bucket): string | null {
  return policies(emu).get(b.id)?.policy ?? null;
}

export function putPolicy(emu: Emu, b: Bucket, policy: string): void {
  let doc: unknown;
  try {
    doc = JSON.parse(policy);
  } catch {
    throw badRequest("policy: must be valid JSON text (an access-policy document)");
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw badRequest("policy: must be a JSON object (an access-policy document)");
  policies(emu).insert({ id: b.id, policy, updatedAt: emu.now() });
}

/** Removing the policy makes the bucket private (§4.8). */
export function deletePolicy(emu: Emu, b: Bucket): void {
  policies(emu).delete(b.id);
  buckets(emu).update(b.id, { visibility: "PRIVATE" });
}

// ---- access keys ----
/** Two storage access keys per workspace, made once; a reset keeps them (seed-tables.ts). */
export function seedStorageKeys(store: Store, nowIso: string): StorageAccessKey[] {
  const table = accessKeys(store);
  for (const ws of store.table<Workspace>("workspaces").all()) {
    if (table.find((k) => k.workspaceId === ws.id)) continue;
    for (const name of ["default", "ci uploads"]) {
      table.insert({
        id: newId(), workspaceId: ws.id, name,
        accessKeyId: `SK${randomBytes(9).toString("hex").toUpperCase()}`,
        secret: randomBytes(24).toString("base64url"),
        createdAt: nowIso, updatedAt: nowIso,
      });
    }
  }
  return table.all();
}

export function accessKeysOf(emu: Emu, ws: Workspace): StorageAccessKey[] {
  return accessKeys(emu.store).where((k) => k.workspaceId === ws.id);
}

/** A storage access key by its id, whichever workspace holds it. */
export function accessKeyById(emu: Emu, accessKeyId: string): StorageAccessKey | undefined {
  return accessKeys(emu.store).find((k) => k.accessKeyId === accessKeyId);
}

// ---- views ----
/** The S3 endpoint of the bucket's region, served by the emulator itself (emulator/s3/): clients address buckets by path. */
export function endpointOf(emu: Emu, region: string): string {
  return `${baseUrlOf(emu)}/_storage/${region}`;
}

/** Where a PUBLIC_READ bucket's objects are read without a key: `{publicBaseUrl}/{key}`. */
export const publicBaseUrlOf = (emu: Emu, b: Bucket) => `${endpointOf(emu, b.region)}/${b.name}`;

export const bucketView = (emu: Emu, b: Bucket) => ({
  name: b.name,
  region: b.region,
  endpoint: endpointOf(emu, b.region),
  publicBaseUrl: b.visibility === "PUBLIC_READ" ? publicBaseUrlOf(emu, b) : null,
  visibility: b.visibility,
  createdAt: b.createdAt,
});

const corsView = (r: CorsRow): CorsRule => ({
  allowedMethods: r.allowedMethods,
  allowedOrigins: r.allowedOrigins,
  allowedHeaders: r.allowedHeaders,
  exposeHeaders: r.exposeHeaders,
  maxAgeSeconds: r.maxAgeSeconds,
});

export const accessKeyView = (k: StorageAccessKey) => ({
  id: k.id, name: k.name, accessKeyId: k.accessKeyId, createdAt: k.createdAt, updatedAt: k.updatedAt,
});
