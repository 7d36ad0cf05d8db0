// Storage routes (infrastructure routes §4.8). Every bucket route works in one region: the
// `region` query, else the workspace default.
import { created, type Ctx, noContent, ok, page, parse, type RouteDef } from "../http";
import {
  accessKeysOf, accessKeyView, bucketRegion, bucketView, corsOf, createBucket, createBucketBody, deleteBucket, deleteCors,
  deletePolicy, getBucket, listBuckets, policyOf, putCors, putCorsBody, putPolicy, putPolicyBody,
} from "../models/storage";

const BUCKET = "/v1/workspaces/:workspaceId/buckets/:bucket";

/** The bucket a route names, in the region it asks for. */
function bucketOf({ principal, params, query, emu }: Ctx) {
  const ws = principal.workspace(params.workspaceId);
  return getBucket(emu, ws, bucketRegion(emu, ws, query), params.bucket);
}

const isTrue = (v: unknown) => v === true || v === "true" || v === "1";

export const storageRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/buckets", scope: "Rp",
    handler: ({ principal, params, query, emu }) => {
      const ws = principal.workspace(params.workspaceId);
      return ok(page(listBuckets(emu, ws, bucketRegion(emu, ws, query)).map((b) => bucketView(emu, b)), query));
    },
  },
  {
    method: "POST", url: "/v1/workspaces/:workspaceId/buckets", scope: "Wp", idempotent: true,
    handler: ({ principal, params, query, body, emu }) => {
      const ws = principal.workspace(params.workspaceId);
      const region = bucketRegion(emu, ws, query);
      return created(bucketView(emu, createBucket(emu, ws, region, parse(createBucketBody, body))));
    },
  },
  {
    method: "DELETE", url: BUCKET, scope: "Wp",
    handler: (ctx) => {
      deleteBucket(ctx.emu, bucketOf(ctx), isTrue(ctx.query.force));
      return noContent();
    },
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/storage/access-keys", scope: "Rp",
    handler: ({ principal, params, query, emu }) =>
      ok(page(accessKeysOf(emu, principal.workspace(params.workspaceId)).map(accessKeyView), query)),
  },
  {
    method: "GET", url: `${BUCKET}/cors`, scope: "Rp",
    handler: (ctx) => ok(page(corsOf(ctx.emu, bucketOf(ctx)), ctx.query)),
  },
  {
    method: "PUT", url: `${BUCKET}/cors`, scope: "Wp",
    handler: (ctx) => {
      const b = bucketOf(ctx);
      const body = Array.isArray(ctx.body) ? { rules: ctx.body } : ctx.body;
      putCors(ctx.emu, b, parse(putCorsBody, body).rules);
      return noContent();
    },
  },
  {
    method: "DELETE", url: `${BUCKET}/cors`, scope: "Wp",
    handler: (ctx) => {
      deleteCors(ctx.emu, bucketOf(ctx));
      return noContent();
    },
  },
  {
    method: "GET", url: `${BUCKET}/policy`, scope: "Rp",
    handler: (ctx) => ok({ policy: policyOf(ctx.emu, bucketOf(ctx)) }),
  },
  {
    method: "PUT", url: `${BUCKET}/policy`, scope: "Wp",
    handler: (ctx) => {
      const b = bucketOf(ctx);
      putPolicy(ctx.emu, b, parse(putPolicyBody, ctx.body).policy);
      return noContent();
    },
  },
  {
    method: "DELETE", url: `${BUCKET}/policy`, scope: "Wp",
    handler: (ctx) => {
      deletePolicy(ctx.emu, bucketOf(ctx));
      return noContent();
    },
  },
];
