// Bucket and service handlers: ListBuckets, HeadBucket, GetBucketLocation, GetBucketCors,
// ListObjectsV2, ListObjects (v1) and DeleteObjects.
import { deleteObject, listObjects, type StoredObject } from "../models/objects";
import { bucketsOf, corsOf } from "../models/storage";
import { bucketOf, countParam, encoderFor, type S3Ctx, type S3Reply, xmlDate, xmlReply } from "./context";
import { invalidArgument, s3Error } from "./errors";
import { childrenNamed, childText, el, escapeXml, parseXml } from "./xml";

const owner = (workspaceId: string) => el("Owner", [el("ID", workspaceId), el("DisplayName", workspaceId)]);

export function listBuckets(ctx: S3Ctx): S3Reply {
  const ws = ctx.caller!.workspaceId;
  const region = ctx.query.get("bucket-region");
  const prefix = ctx.query.get("prefix") ?? "";
  const shown = bucketsOf(ctx.emu, ws).filter((b) => (!region || b.region === region) && b.name.startsWith(prefix));
  return xmlReply("ListAllMyBucketsResult", [
    owner(ws),
    el("Buckets", shown.map((b) => el("Bucket", [el("Name", b.name), el("CreationDate", xmlDate(b.createdAt)), el("BucketRegion", b.region)]))),
    ...(prefix ? [el("Prefix", prefix)] : []),
  ]);
}

export function headBucket(ctx: S3Ctx): S3Reply {
  return { status: 200, headers: { "x-amz-bucket-region": bucketOf(ctx).region, "x-amz-access-point-alias": "false" } };
}

export function getBucketLocation(ctx: S3Ctx): S3Reply {
  return xmlReply("LocationConstraint", [escapeXml(bucketOf(ctx).region)]);
}

export function getBucketCors(ctx: S3Ctx): S3Reply {
  const rules = corsOf(ctx.emu, bucketOf(ctx));
  if (rules.length === 0) throw s3Error("NoSuchCORSConfiguration", "The CORS configuration does not exist", { BucketName: bucketOf(ctx).name });
  return xmlReply("CORSConfiguration", rules.map((r) => el("CORSRule", [
    ...r.allowedOrigins.map((o) => el("AllowedOrigin", o)),
    ...r.allowedMethods.map((m) => el("AllowedMethod", m)),
    ...(r.allowedHeaders ?? []).map((h) => el("AllowedHeader", h)),
    ...(r.exposeHeaders ?? []).map((h) => el("ExposeHeader", h)),
    r.maxAgeSeconds === null ? "" : el("MaxAgeSeconds", r.maxAgeSeconds),
  ])));
}

function contents(o: StoredObject, encode: (s: string) => string, withOwner: string | undefined): string {
  return el("Contents", [
    el("Key", encode(o.key)), el("LastModified", xmlDate(o.lastModified)), el("ETag", `"${o.etag}"`),
    o.checksum ? el("ChecksumAlgorithm", o.checksum.algorithm.toUpperCase()) : "",
    el("Size", o.size), el("StorageClass", "STANDARD"), withOwner ? owner(withOwner) : "",
  ]);
}

/** Continuation tokens are opaque to clients: the last key or common prefix of the page, wrapped. */
const tokenFor = (last: string) => Buffer.from(JSON.stringify({ after: last })).toString("base64url");
function tokenAfter(token: string): string {
  try {
    const after = JSON.parse(Buffer.from(token, "base64url").toString("utf8")).after;
    if (typeof after === "string") return after;
  } catch {
    // refused below
  }
  throw invalidArgument("continuation-token", token, "The continuation token provided is incorrect");
}

export function listObjectsV2(ctx: S3Ctx): S3Reply {
  const b = bucketOf(ctx);
  const q = ctx.query;
  const encode = encoderFor(ctx);
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") || undefined;
  const maxKeys = countParam(ctx, "max-keys", 1000, 1000);
  const token = q.get("continuation-token");
  const startAfter = q.get("start-after");
  const page = listObjects(ctx.emu, b.id, { prefix, delimiter, after: token !== undefined ? tokenAfter(token) : startAfter, maxKeys });
  return xmlReply("ListBucketResult", [
    el("Name", b.name), el("Prefix", encode(prefix)), delimiter ? el("Delimiter", encode(delimiter)) : "",
    el("MaxKeys", maxKeys), q.has("encoding-type") ? el("EncodingType", "url") : "",
    el("KeyCount", page.contents.length + page.prefixes.length), el("IsTruncated", page.truncated),
    token !== undefined ? el("ContinuationToken", token) : "",
    page.truncated ? el("NextContinuationToken", tokenFor(page.last!)) : "",
    startAfter !== undefined ? el("StartAfter", encode(startAfter)) : "",
    ...page.contents.map((o) => contents(o, encode, q.get("fetch-owner") === "true" ? b.workspaceId : undefined)),
    ...page.prefixes.map((p) => el("CommonPrefixes", [el("Prefix", encode(p))])),
  ]);
}

export function listObjectsV1(ctx: S3Ctx): S3Reply {
  const b = bucketOf(ctx);
  const q = ctx.query;
  const encode = encoderFor(ctx);
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") || undefined;
  const maxKeys = countParam(ctx, "max-keys", 1000, 1000);
  const marker = q.get("marker") ?? "";
  const page = listObjects(ctx.emu, b.id, { prefix, delimiter, after: marker, maxKeys });
  return xmlReply("ListBucketResult", [
    el("Name", b.name), el("Prefix", encode(prefix)), el("Marker", encode(marker)),
    page.truncated ? el("NextMarker", encode(page.last!)) : "",
    el("MaxKeys", maxKeys), delimiter ? el("Delimiter", encode(delimiter)) : "",
    q.has("encoding-type") ? el("EncodingType", "url") : "", el("IsTruncated", page.truncated),
    ...page.contents.map((o) => contents(o, encode, b.workspaceId)),
    ...page.prefixes.map((p) => el("CommonPrefixes", [el("Prefix", encode(p))])),
  ]);
}

const MAX_DELETE_KEYS = 1000;

export function deleteObjects(ctx: S3Ctx): S3Reply {
  const b = bucketOf(ctx);
  if (!ctx.payload.integrity) throw s3Error("InvalidRequest", "Missing required header for this request: Content-MD5 (or an x-amz-checksum-* header)");
  const doc = parseXml(ctx.payload.body.toString("utf8"));
  const listed = doc.name === "Delete" ? childrenNamed(doc, "Object") : [];
  if (listed.length === 0 || listed.length > MAX_DELETE_KEYS) {
    throw s3Error("MalformedXML", `The XML you provided was not well-formed or did not validate against our published schema: Delete lists 1 to ${MAX_DELETE_KEYS} Objects`);
  }
  const keys = listed.map((o) => {
    const key = childText(o, "Key");
    if (key === undefined || key === "") throw s3Error("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: each Object needs a Key");
    return { key, versionId: childText(o, "VersionId") };
  });
  const quiet = childText(doc, "Quiet")?.trim() === "true";
  for (const k of keys) deleteObject(ctx.emu, b.id, k.key);
  return xmlReply("DeleteResult", quiet ? [] : keys.map((k) => el("Deleted", [el("Key", k.key), el("VersionId", k.versionId)])));
}
