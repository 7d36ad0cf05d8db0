// The S3-compatible endpoint of each region, `{baseUrl}/_storage/{region}`, addressed by path
// (`/{bucket}/{key}`): SigV4 (header or presigned) with the workspace's storage access keys,
// anonymous reads of PUBLIC_READ buckets, the bucket's CORS rules, and S3's XML bodies and errors.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Readable } from "node:stream";
import type { Emu } from "../emu";
import { PlatformError } from "../errors";
import { findRegion } from "../models/catalogue";
import { accessKeyById, type Bucket, bucketNamed, corsOf, endpointOf, type StorageAccessKey } from "../models/storage";
import {
  deleteObjects, getBucketCors, getBucketLocation, headBucket, listBuckets, listObjectsV1, listObjectsV2,
} from "./buckets";
import type { S3Ctx, S3Reply } from "./context";
import { corsHeaders, corsRuleFor, preflight } from "./cors";
import { accessDenied, noSuchBucket, S3Error, s3Error } from "./errors";
import {
  abortMultipartUpload, completeMultipartUpload, createMultipartUpload, listMultipartUploads, listParts, uploadPart,
} from "./multipart";
import { copyObject, deleteObject, getObject, putObject } from "./objects";
import { PayloadReader } from "./payload";
import { readToFile, readWhole } from "./receive";
import { readClaim, type SignedRequest, verifyClaim } from "./sigv4";
import { el, xmlDoc } from "./xml";

interface Operation {
  name: string;
  run: (ctx: S3Ctx) => S3Reply | Promise<S3Reply>;
  /** Anonymous callers may run it on a PUBLIC_READ bucket. */
  publicRead?: boolean;
  /** Its body is an object's bytes: streamed to a file, not read into memory. */
  streams?: boolean;
}

/** Query parameters that name a sub-resource (an operation of their own), as S3 reads them. */
const SUBRESOURCES = new Set([
  "accelerate", "acl", "analytics", "attributes", "cors", "delete", "encryption", "intelligent-tiering", "inventory", "legal-hold",
  "lifecycle", "list-type", "location", "logging", "metrics", "notification", "object-lock", "ownershipControls", "partNumber",
  "policy", "policyStatus", "publicAccessBlock", "replication", "requestPayment", "restore", "retention", "select", "tagging",
  "torrent", "uploadId", "uploads", "versionId", "versioning", "versions", "website",
]);

const notSupported = (what: string) => s3Error("NotImplemented", `${what} is not supported by the emulator's S3 endpoint`);
const PLATFORM_MANAGED = "Buckets are created, configured and deleted with the platform API (/v1/workspaces/{workspaceId}/buckets); S3 bucket writes";

/** Which operation a request is, from its method, whether it names a bucket and a key, and its sub-resources. */
function operationFor(ctx: S3Ctx, hasBucket: boolean): Operation {
  const { method, key, query } = ctx;
  const subs = [...query.keys()].filter((k) => SUBRESOURCES.has(k));
  const only = (allowed: string[], what: string) => {
    const other = subs.find((s) => !allowed.includes(s));
    if (other) throw notSupported(`${what} ?${other}`);
  };
  if (!hasBucket) {
    if (method === "GET") return { name: "ListBuckets", run: listBuckets };
    throw s3Error("MethodNotAllowed", `The specified method is not allowed against this resource: ${method} of the service`, { Method: method, ResourceType: "SERVICE" });
  }
  if (key === "") {
    if (method === "GET") {
      if (query.has("uploads")) return { name: "ListMultipartUploads", run: listMultipartUploads };
      if (query.has("location")) return { name: "GetBucketLocation", run: getBucketLocation };
      if (query.has("cors")) return { name: "GetBucketCors", run: getBucketCors };
      only(["list-type"], "GET of a bucket with");
      return query.get("list-type") === "2" ? { name: "ListObjectsV2", run: listObjectsV2 } : { name: "ListObjects", run: listObjectsV1 };
    }
    if (method === "HEAD") return { name: "HeadBucket", run: headBucket };
    if (method === "POST" && query.has("delete")) return { name: "DeleteObjects", run: deleteObjects };
    if (method === "PUT" || method === "DELETE") throw notSupported(`${PLATFORM_MANAGED} (${method} of a bucket)`);
    if (method === "POST") throw notSupported(`POST of a bucket${subs.length ? ` with ?${subs[0]}` : " (browser form uploads)"}`);
    throw s3Error("MethodNotAllowed", `The specified method is not allowed against this resource: ${method}`, { Method: method, ResourceType: "BUCKET" });
  }
  if (query.has("versionId") && query.get("versionId") !== "null") {
    throw s3Error("InvalidArgument", "Invalid version id specified: the emulator's buckets are not versioned", { ArgumentName: "versionId", ArgumentValue: query.get("versionId")! });
  }
  switch (method) {
    case "GET":
      if (query.has("uploadId")) return { name: "ListParts", run: listParts };
      only(["versionId", "partNumber"], "GET of an object with");
      return { name: "GetObject", run: getObject, publicRead: true };
    case "HEAD":
      only(["versionId", "partNumber"], "HEAD of an object with");
      return { name: "HeadObject", run: getObject, publicRead: true };
    case "PUT":
      if (query.has("uploadId") && query.has("partNumber")) return { name: "UploadPart", run: uploadPart, streams: ctx.header("x-amz-copy-source") === undefined };
      only([], "PUT of an object with");
      return ctx.header("x-amz-copy-source") !== undefined ? { name: "CopyObject", run: copyObject } : { name: "PutObject", run: putObject, streams: true };
    case "POST":
      if (query.has("uploads")) return { name: "CreateMultipartUpload", run: createMultipartUpload };
      if (query.has("uploadId")) return { name: "CompleteMultipartUpload", run: completeMultipartUpload };
      throw notSupported(`POST of an object${subs.length ? ` with ?${subs[0]}` : " (browser form uploads)"}`);
    case "DELETE":
      if (query.has("uploadId")) return { name: "AbortMultipartUpload", run: abortMultipartUpload };
      only(["versionId"], "DELETE of an object with");
      return { name: "DeleteObject", run: deleteObject };
    default:
      throw s3Error("MethodNotAllowed", `The specified method is not allowed against this resource: ${method}`, { Method: method, ResourceType: "OBJECT" });
  }
}

interface Parsed {
  region: string;
  bucket?: string;
  key: string;
  signed: SignedRequest;
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    throw s3Error("InvalidURI", "Couldn't parse the specified URI.");
  }
};

/** The path and query as sent (fastify's own parsing would turn '+' into a space, and more). */
function parse(req: FastifyRequest): Parsed {
  const url = req.raw.url ?? "/";
  const q = url.indexOf("?");
  const segments = (q < 0 ? url : url.slice(0, q)).split("/");
  const region = decode(segments[2] ?? "");
  const bucket = segments[3] ? decode(segments[3]) : undefined;
  const key = decode(segments.slice(4).join("/"));
  const query = (q < 0 ? "" : url.slice(q + 1)).split("&").filter(Boolean).map((pair): [string, string] => {
    const eq = pair.indexOf("=");
    return eq < 0 ? [decode(pair), ""] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))];
  });
  const headers = new Map<string, string[]>();
  const raw = req.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), raw[i + 1]]);
  }
  const path = segments.map((s, i) => (i === 0 ? s : decode(s))).join("/");
  return { region, bucket, key, signed: { method: req.method, path, query, headers } };
}

/**
 * Who signed the request (an access key of the bucket's workspace), or nobody; how its body is read;
 * and whether it was signed for the bucket's own region at another region's endpoint. That is a
 * client which followed a region redirect but cannot leave its endpoint override (the AWS SDKs'
 * `endpoint` with `followRegionRedirects`): S3 would have it at the bucket's regional host, so it is served.
 */
function authenticate(emu: Emu, p: Parsed, bucket: Bucket | undefined): { caller?: StorageAccessKey; reader: PayloadReader; redirected: boolean } {
  const claim = readClaim(p.signed);
  if (!claim) return { reader: new PayloadReader("UNSIGNED-PAYLOAD", p.signed.headers), redirected: false };
  const caller = accessKeyById(emu, claim.scope.accessKeyId);
  if (!caller) {
    throw s3Error("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", { AWSAccessKeyId: claim.scope.accessKeyId });
  }
  const redirected = bucket !== undefined && bucket.region !== p.region && claim.scope.region === bucket.region;
  const key = verifyClaim(p.signed, claim, caller.secret, redirected ? bucket.region : p.region, emu.clock.now());
  const chain = { key, seed: claim.signature, amzDate: claim.amzDate, scope: claim.scope };
  return { caller, reader: new PayloadReader(claim.payload, p.signed.headers, chain), redirected };
}

function authorise(b: Bucket, caller: StorageAccessKey | undefined, op: Operation): void {
  if (caller ? caller.workspaceId === b.workspaceId : op.publicRead && b.visibility === "PUBLIC_READ") return;
  throw accessDenied();
}

function errorBody(err: S3Error, resource: string, requestId: string): string {
  return xmlDoc("Error", [
    el("Code", err.code), el("Message", err.message),
    ...Object.entries(err.details).map(([k, v]) => el(k, v)),
    el("Resource", resource), el("RequestId", requestId),
  ], false);
}

/**
 * S3 names a bucket's region on its region errors (a signature for another region, another region's
 * endpoint) and on every HeadBucket answer: a HEAD has no body, and clients (botocore) re-sign for
 * the region this header gives.
 */
function bucketRegionHeader(e: S3Error, bucket: Bucket | undefined, headOfBucket: boolean): Record<string, string> {
  const regionError = e.code === "PermanentRedirect" || e.details.Region !== undefined;
  return bucket && (regionError || headOfBucket) ? { "x-amz-bucket-region": bucket.region } : {};
}

function asS3Error(emu: Emu, err: unknown, req: FastifyRequest): S3Error {
  if (err instanceof S3Error) return err;
  const fe = err as { statusCode?: number; code?: string; message?: string };
  if (err instanceof PlatformError && err.statusCode < 500) return s3Error("InvalidRequest", err.message);
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return s3Error("InvalidRequest", fe.message ?? "Bad request");
  // Logged whether or not --log is on: a 500 always leaves its stack.
  emu.log({ kind: "error", msg: `${req.method} ${req.url.split("?")[0]}: ${(err as Error)?.message ?? String(err)}`, requestId: req.id, stack: (err as Error)?.stack });
  return s3Error("InternalError", "We encountered an internal error. Please try again.");
}

async function serve(emu: Emu, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  let bucket: Bucket | undefined;
  let resource = "/";
  let headOfBucket = false;
  const send = (out: S3Reply) => {
    reply.code(out.status).header("x-amz-request-id", req.id).header("date", new Date(emu.clock.now()).toUTCString());
    const origin = req.headers.origin;
    if (bucket && origin && req.method !== "OPTIONS") {
      const rule = corsRuleFor(corsOf(emu, bucket), origin, req.method);
      if (rule) reply.headers(corsHeaders(rule, origin));
    }
    reply.headers(out.headers ?? {});
    if (out.body === undefined || out.status === 204 || out.status === 304) {
      (out.body as Readable | undefined)?.destroy?.();
      return reply.send();
    }
    return reply.send(out.body);
  };
  let ctx: S3Ctx | undefined;
  try {
    const p = parse(req);
    resource = `/${[p.bucket, p.key].filter(Boolean).join("/")}`;
    headOfBucket = req.method === "HEAD" && p.bucket !== undefined && p.key === "";
    if (!findRegion(p.region)) throw s3Error("InvalidRequest", `The endpoint's region '${p.region}' is not a region of the platform`);
    bucket = p.bucket === undefined ? undefined : bucketNamed(emu, p.bucket);
    if (req.method === "OPTIONS") {
      if (!bucket) throw noSuchBucket(p.bucket ?? "");
      return send({ status: 200, headers: preflight(corsOf(emu, bucket), bucket.name, (h) => p.signed.headers.get(h)?.[0]) });
    }
    const { caller, reader, redirected } = authenticate(emu, p, bucket);
    ctx = {
      emu, method: req.method, region: p.region, key: p.key, query: new Map(p.signed.query), headers: p.signed.headers,
      header: (name) => p.signed.headers.get(name)?.join(","), payload: { body: Buffer.alloc(0), integrity: false, size: 0, md5: "" }, caller, requestId: req.id,
    };
    const op = operationFor(ctx, p.bucket !== undefined);
    if (p.bucket === undefined) {
      if (!caller) throw accessDenied();
    } else {
      if (!bucket) throw noSuchBucket(p.bucket);
      authorise(bucket, caller, op);
      if (bucket.region !== p.region && !redirected) {
        throw new S3Error("PermanentRedirect", "The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.", {
          Endpoint: endpointOf(emu, bucket.region), Bucket: bucket.name,
        }, { "x-amz-bucket-region": bucket.region });
      }
      ctx.bucket = bucket;
    }
    const body = req.body as Readable | undefined;
    if (op.streams) ({ payload: ctx.payload, received: ctx.received } = await readToFile(emu, body, reader, p.signed.headers));
    else ctx.payload = await readWhole(body, reader, p.signed.headers);
    return send(await op.run(ctx));
  } catch (err) {
    const e = asS3Error(emu, err, req);
    return send({ status: e.statusCode, headers: { "content-type": "application/xml", ...bucketRegionHeader(e, bucket, headOfBucket), ...e.headers }, body: errorBody(e, resource, req.id) });
  } finally {
    // A body streamed in but not stored (a failed condition, a bad digest) leaves no file.
    await ctx?.received?.pending.discard();
  }
}

/** The access key a SigV4 request names, so a rate limit counts an S3 caller's requests together. */
export function s3AccessKeyIdOf(authorization: string | undefined, url: string): string | undefined {
  const m = /^AWS4-HMAC-SHA256 .*Credential=([^/,\s]+)\//.exec(authorization ?? "") ?? /[?&]X-Amz-Credential=([^&%/]+)(?:%2F|\/)/.exec(url);
  return m?.[1];
}

export function s3Routes(app: FastifyInstance, emu: Emu): void {
  void app.register(async (scope) => {
    // Objects are raw bytes of any type: the handler reads each body as a stream (receive.ts caps it).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, body, done) => done(null, body));
    scope.setErrorHandler((err, req, reply) => {
      const e = asS3Error(emu, err, req);
      const resource = `/${req.url.split("?")[0].split("/").slice(3).join("/")}`;
      return reply.code(e.statusCode).type("application/xml").header("x-amz-request-id", req.id).send(errorBody(e, resource, req.id));
    });
    const handler = (req: FastifyRequest, reply: FastifyReply) => serve(emu, req, reply);
    for (const url of ["/_storage/:region", "/_storage/:region/", "/_storage/:region/:bucket", "/_storage/:region/:bucket/*"]) {
      scope.route({ method: ["GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS", "PATCH"], url, handler, exposeHeadRoute: false });
    }
  });
}
