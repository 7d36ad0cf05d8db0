// Bucket: an object storage bucket with its CORS rules and access policy (infrastructure routes
// §2.6, §4.8). Names are unique across the whole service, so an omitted name is generated from the
// logical name plus a random suffix, once, and kept. No route renames a bucket, moves it or changes
// its visibility, so those replace it; CORS rules and the policy have their own PUT/DELETE routes.
import { z } from "zod";
import { bucketApi } from "../api/endpoints/storage";
import type { V1CorsRule, V1StorageBucket } from "../api/storage";
import {
  type CheckContext, checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, findShared,
  isImport, isUnknown, ResourceInitError, same, UNKNOWN, workspaceOf,
} from "./framework";
import { ConflictError } from "../client";
import { autoName, canonicalJson, canonicalPolicy, corsRule, type CorsRule, normaliseRules } from "./bucketRules";
import { id, regionKey } from "./rules";

// ---- schemas ----
export const BUCKET_NAME = /^[a-z0-9.-]{3,63}$/;

export const bucketInputs = z.object({
  name: z.string({ error: "must be a string" })
    .regex(BUCKET_NAME, "must be 3 to 63 characters: lowercase letters, digits, '.' and '-'")
    .describe("Bucket name, unique across the whole service: 3 to 63 characters, lowercase letters, digits, '.' and '-'. Omitted, it is the logical name plus a random suffix, generated once and kept. Changing it replaces the bucket.")
    .optional(),
  region: regionKey.describe("Region the bucket lives in. Defaults to the workspace's. Changing it replaces the bucket.").optional(),
  visibility: z.enum(["PRIVATE", "PUBLIC_READ"], { error: "must be PRIVATE or PUBLIC_READ" })
    .describe("PRIVATE (the default) or PUBLIC_READ (anyone may read objects at publicBaseUrl). No route changes it, so a change replaces the bucket.")
    .optional(),
  workspaceId: id("Workspace to create the bucket in. Defaults to cloudplatform:workspaceId, or the only workspace the key reaches. Changing it replaces the bucket.").optional(),
  corsRules: z.array(corsRule).describe("The bucket's whole CORS rule set, in order. Omitted: not managed. An empty list removes every rule.").optional(),
  policy: z.union([z.string(), z.record(z.string(), z.unknown())], { error: "must be a JSON string or an object" })
    .superRefine(policyRule)
    .describe("The access-policy document: an object, or its JSON text. Compared as canonical JSON, so key order and whitespace are not changes. Omitted: not managed.")
    .optional(),
  forceDestroy: z.boolean({ error: "must be a boolean" })
    .describe("Let destroy (or a replacement) delete the bucket's objects too. Default false: deleting a bucket that holds objects fails. Set to true, it also lets the next `up` delete a bucket that a replacement left behind.")
    .optional(),
});
/** After check: the policy is canonical JSON text and the CORS rules are in normal form. */
export type BucketInputs = Omit<z.infer<typeof bucketInputs>, "policy" | "corsRules"> & { policy?: string; corsRules?: CorsRule[]; __autoNamed?: boolean };

export const bucketOutputs = z.object({
  name: z.string().describe("Bucket name."),
  region: z.string().describe("Region the bucket lives in."),
  visibility: z.string().nullable().describe("PRIVATE or PUBLIC_READ (the set is open)."),
  workspaceId: z.string().describe("Workspace that owns the bucket."),
  corsRules: z.array(corsRule).nullable().describe("The CORS rules, when the program manages them."),
  policy: z.string().nullable().describe("The access-policy document as canonical JSON, when the program manages it."),
  forceDestroy: z.boolean().describe("Whether destroy deletes the bucket's objects too."),
  endpoint: z.string().nullable().describe("The S3-compatible endpoint of the bucket's region: give it, with `region` and a storage access key, to an S3 client that addresses buckets by path (`new S3Client({ endpoint, region, forcePathStyle: true, credentials })`)."),
  publicBaseUrl: z.string().nullable().describe("Public address of the objects (`{publicBaseUrl}/{key}`, read without a key); null unless PUBLIC_READ."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
});
export type BucketOutputs = Omit<z.infer<typeof bucketOutputs>, "corsRules"> & { corsRules: CorsRule[] | null; __autoNamed?: boolean; __identity?: string };

const DIFF = {
  replace: ["name", "region", "workspaceId", "visibility"],
  update: ["corsRules", "policy", "forceDestroy"],
  defaulted: ["region", "workspaceId", "visibility", "corsRules", "policy"],
};

export const Bucket = defineResource<BucketInputs, BucketOutputs>({
  token: "cloudplatform:index:Bucket",
  description: "An object storage bucket, with its CORS rules and access policy. Deleting one that holds objects needs forceDestroy.",
  inputs: bucketInputs,
  outputs: bucketOutputs,
  stableOutputs: ["endpoint", "publicBaseUrl", "createdAt"],
  deleteBeforeReplace: true,
  importId: {
    format: "<workspaceId>/<region>/<name>",
    note: "A bare `<name>` is looked up in the configured workspace's default region. The resource's id in state is the bucket's name. CORS rules and a policy the bucket has are imported too.",
  },
  inputsOf: (o) => inputsOf(o),

  // ---- check ----
  check(olds, news, who = {}) {
    // A generated name is kept, unless a change is sure to replace the bucket: the replacement
    // then gets a fresh name, so it does not collide with the old one where a program sets
    // deleteBeforeReplace: false (by default the old bucket goes first).
    const { __logicalName, __autoNamed: _, ...given } = news;
    const autoNamed = given.name === undefined;
    const replacing = DIFF.replace.some((k) => k !== "name" && (olds as Record<string, unknown>)[k] !== undefined && given[k] !== undefined
      && !isUnknown(given[k]) && !same((olds as Record<string, unknown>)[k], given[k]));
    if (autoNamed) given.name = olds.__autoNamed && olds.name && !replacing ? olds.name : generatedName(who, given, __logicalName);
    const r = checkWith<BucketInputs>(bucketInputs, given);
    if (!r.inputs) return r;
    const i = r.inputs as Record<string, unknown>;
    if (Array.isArray(i.corsRules)) i.corsRules = normaliseRules(i.corsRules as CorsRule[]);
    if (i.policy !== undefined && !isUnknown(i.policy)) i.policy = canonicalJson(typeof i.policy === "string" ? JSON.parse(i.policy) : i.policy);
    if (autoNamed) i.__autoNamed = true;
    return r;
  },

  // ---- diff ----
  diff(_id, olds, news) {
    const d = diffWith(olds, { ...news, forceDestroy: news.forceDestroy ?? false }, DIFF);
    // A replacement that keeps the name must delete the old bucket first: names are unique.
    return { ...d, deleteBeforeReplace: !!d.replaces?.length && !isUnknown(news.name) && olds.name === news.name };
  },

  // ---- create ----
  async create(ctx, inputs) {
    const workspaceId = inputs.workspaceId ?? (await ctx.workspaceId());
    const b = await bucketApi.create(ctx.client, workspaceId, inputs.region, { name: inputs.name, ...(inputs.visibility ? { visibility: inputs.visibility } : {}) }, {
      own: (made) => made.name, exists: async (made) => !!(await findBucket(ctx, workspaceId, made.name, made.region ?? inputs.region, { fresh: true })),
    });
    const region = b.region ?? inputs.region ?? "";
    const outs = toOutputs(b, { workspaceId, region, corsRules: null, policy: null, inputs: { ...inputs, __identity: ctx.identity } });
    try {
      outs.corsRules = await applyCors(ctx, outs, undefined, inputs.corsRules);
      outs.policy = await applyPolicy(ctx, outs, undefined, inputs.policy);
    } catch (err) {
      throw new ResourceInitError(`bucket ${b.name} was created, but setting its CORS rules or policy failed: ${(err as Error).message}`, b.name, outs);
    }
    return { id: b.name, outs };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const at = splitId(id);
    const ws = olds.workspaceId || at.workspaceId || (await ctx.workspaceId());
    const region = olds.region || at.region;
    const b = await findBucket(ctx, ws, at.name, region);
    if (!b) return {};
    const loc = { workspaceId: ws, region: b.region ?? region ?? "" };
    // An import takes over the rules and policy the bucket has; a refresh reads those the program manages.
    const importing = isImport(olds);
    const rules = olds.corsRules != null || importing ? normaliseRules(await readCors(ctx, loc, b.name)) : null;
    const corsRules = importing && !rules?.length ? null : rules;
    const live = olds.policy != null || importing ? await readPolicy(ctx, loc, b.name) : null;
    const outs = toOutputs(b, { ...loc, corsRules, policy: canonicalPolicy(live), inputs: olds });
    return { id: b.name, props: outs, inputs: inputsOf(outs) };
  },

  // ---- update ----
  async update(ctx, id, olds, news) {
    const outs: BucketOutputs = { ...olds, workspaceId: await workspaceFor(ctx, id, olds), forceDestroy: news.forceDestroy ?? false };
    if (news.corsRules !== undefined) outs.corsRules = await applyCors(ctx, outs, olds.corsRules, news.corsRules);
    if (news.policy !== undefined) outs.policy = await applyPolicy(ctx, outs, olds.policy, news.policy);
    return { outs };
  },

  // ---- delete ----
  async delete(ctx, id, olds) {
    const at = { workspaceId: await workspaceFor(ctx, id, olds), name: splitId(id).name };
    // A bucket a replacement leaves behind (or one left pending delete) goes as the program now
    // declares forceDestroy: the state of the old one cannot be updated first.
    const who = olds.__identity ?? ctx.identity;
    const force = olds.forceDestroy || (who !== undefined && ctx.declared?.(who)?.forceDestroy === true);
    try {
      await deleteIgnoringNotFound(() => bucketApi.delete(ctx.client, { ...at, region: olds.region }, force));
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      throw new Error(
        `bucket ${id} still holds objects, so it was not deleted (nothing was). To delete it with its objects, set forceDestroy: true ` +
          `and run \`pulumi up\` (then \`pulumi destroy\`, if you are destroying); or empty the bucket first. (${err.message})`,
      );
    }
  },
});

/**
 * `<logical name>-<suffix>`, the suffix drawn from the resource's identity (its URN on the plugin)
 * and the inputs whose change replaces the bucket: the same in preview and in `up`, and another
 * one for a replacement. (The engine's
 * randomSeed is not used: 3.248.0 draws a fresh one for every run unless an update plan carries
 * it, so a plain preview would show another name than `up` makes.) Unknown while those inputs are.
 */
function generatedName(who: CheckContext, given: Record<string, unknown>, logicalName: unknown): string {
  const logical = who.name ?? (typeof logicalName === "string" ? logicalName : "bucket");
  const keys = [given.region, given.visibility, given.workspaceId];
  if (keys.some(isUnknown)) return UNKNOWN;
  return autoName(logical, who.identity ? `${who.identity}\n${JSON.stringify(keys)}` : undefined);
}

// ---- settings: CORS and policy, written only when they differ ----
type Where = { workspaceId: string; region: string; name: string };

async function applyCors(ctx: Context, b: Where, olds: CorsRule[] | null | undefined, news: CorsRule[] | undefined): Promise<CorsRule[] | null> {
  if (news === undefined) return olds ?? null;
  if (olds && JSON.stringify(olds) === JSON.stringify(news)) return news;
  if (news.length === 0) await bucketApi.deleteCors(ctx.client, b);
  else await bucketApi.putCors(ctx.client, b, news);
  return news;
}

async function applyPolicy(ctx: Context, b: Where, olds: string | null | undefined, news: string | undefined): Promise<string | null> {
  if (news === undefined) return olds ?? null;
  if (olds === news) return news;
  await bucketApi.putPolicy(ctx.client, b, news);
  return news;
}

// ---- finders ----

/** `<workspaceId>/<region>/<name>` or a bare name (bucket names hold no '/'). */
function splitId(id: string): { workspaceId?: string; region?: string; name: string } {
  const parts = id.split("/");
  if (parts.length === 1) return { name: id };
  if (parts.length === 3 && parts.every(Boolean)) return { workspaceId: parts[0], region: parts[1], name: parts[2] };
  throw new Error(`Bucket id '${id}': expected <workspaceId>/<region>/<name>, or a bare <name> in the configured workspace's default region`);
}

/** The bucket's workspace: from state, from the id, or (older state) the configured one when it holds the bucket. */
const workspaceFor = (ctx: Context, id: string, olds: BucketOutputs) =>
  workspaceOf(ctx, olds.workspaceId || splitId(id).workspaceId, `bucket ${splitId(id).name}`, async (ws) => !!(await findBucket(ctx, ws, splitId(id).name, olds.region)));

/** There is no GET of one bucket: the region's list is searched by name, in a walk reads share. */
export async function findBucket(ctx: Context, workspaceId: string | undefined, name: string, region?: string, opts: { fresh?: boolean } = {}): Promise<V1StorageBucket | undefined> {
  const ws = workspaceId || (await ctx.workspaceId());
  return findShared(ctx, `buckets\n${ws}\n${region ?? ""}`, () => bucketApi.list(ctx.client, ws, region), (b) => b.name === name, opts);
}

export const readCors = (ctx: Context, loc: { workspaceId: string; region: string }, name: string): Promise<V1CorsRule[]> =>
  bucketApi.cors(ctx.client, { ...loc, name });

export const readPolicy = (ctx: Context, loc: { workspaceId: string; region: string }, name: string): Promise<string | null> =>
  bucketApi.policy(ctx.client, { ...loc, name });

// ---- mappers ----
function toOutputs(
  b: V1StorageBucket,
  s: { workspaceId: string; region: string; corsRules: CorsRule[] | null; policy: string | null; inputs: { forceDestroy?: boolean; __autoNamed?: boolean; __identity?: string } },
): BucketOutputs {
  return {
    name: b.name,
    region: b.region ?? s.region,
    visibility: b.visibility ?? null,
    workspaceId: s.workspaceId,
    corsRules: s.corsRules,
    policy: s.policy,
    forceDestroy: s.inputs.forceDestroy ?? false,
    endpoint: b.endpoint ?? null,
    publicBaseUrl: b.publicBaseUrl ?? null,
    createdAt: b.createdAt ?? null,
    // Kept in state so a refresh does not forget that the name was generated (check reuses it).
    ...(s.inputs.__autoNamed ? { __autoNamed: true } : {}),
    // Who the bucket is (its URN, or the SDK's identity), so a delete can find what the program now declares.
    ...(s.inputs.__identity ? { __identity: s.inputs.__identity } : {}),
  };
}

/** A policy removed out of band is null: the program's policy then shows as a change, and up puts it back. */
function inputsOf(o: BucketOutputs): BucketInputs {
  const inputs: BucketInputs = { name: o.name, region: o.region, forceDestroy: o.forceDestroy };
  if (o.__autoNamed) inputs.__autoNamed = true;
  if (o.visibility) inputs.visibility = o.visibility as BucketInputs["visibility"];
  if (o.corsRules) inputs.corsRules = o.corsRules;
  if (o.policy) inputs.policy = o.policy;
  return inputs;
}

/** A policy given as text must hold a JSON object (an access-policy document). */
function policyRule(value: string | Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (typeof value !== "string") return;
  let doc: unknown;
  try {
    doc = JSON.parse(value);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: `is not valid JSON (${(err as Error).message})` });
    return;
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) ctx.addIssue({ code: "custom", message: "must be a JSON object (an access-policy document)" });
}
