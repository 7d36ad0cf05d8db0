// Object handlers: GetObject and HeadObject (ranges, parts, conditions, response overrides),
// PutObject (conditional writes), CopyObject and DeleteObject.
import {
  bodyStream, deleteObject as removeObject, findObject, MAX_PART_NUMBER, type ObjectAttributes, putObject as storeObject, receive, type StoredObject,
} from "../models/objects";
import { bucketNamed } from "../models/storage";
import { bucketOf, httpDate, type S3Ctx, type S3Reply, xmlDate, xmlReply } from "./context";
import { accessDenied, invalidArgument, noSuchBucket, noSuchKey, s3Error } from "./errors";
import { el } from "./xml";

const STORED_HEADERS = ["cache-control", "content-disposition", "content-encoding", "content-language", "expires"];
const MAX_METADATA_BYTES = 2048;

/** An object's attributes from the request: content type, x-amz-meta-*, the headers it is served with. */
export function attributesFrom(ctx: S3Ctx, withChecksum = true): ObjectAttributes {
  const metadata: Record<string, string> = {};
  let size = 0;
  for (const [name, values] of ctx.headers) {
    if (!name.startsWith("x-amz-meta-")) continue;
    metadata[name.slice("x-amz-meta-".length)] = values.join(",");
    size += name.length - "x-amz-meta-".length + Buffer.byteLength(values.join(","));
  }
  if (size > MAX_METADATA_BYTES) {
    throw s3Error("MetadataTooLarge", `Your metadata headers exceed the maximum allowed metadata size (${MAX_METADATA_BYTES} bytes of x-amz-meta-* names and values)`, {
      Size: String(size), MaxSizeAllowed: String(MAX_METADATA_BYTES),
    });
  }
  const headers: Record<string, string> = {};
  for (const h of STORED_HEADERS) {
    let v = ctx.header(h);
    // aws-chunked describes how this request was sent, not the object.
    if (h === "content-encoding" && v) v = v.split(",").map((x) => x.trim()).filter((x) => x && x !== "aws-chunked").join(",");
    if (v) headers[h] = v;
  }
  const checksum = withChecksum ? ctx.payload.checksum : undefined;
  return { contentType: ctx.header("content-type") ?? "binary/octet-stream", metadata, headers, ...(checksum ? { checksum } : {}) };
}

/** The headers an object is served with. */
function objectHeaders(o: StoredObject): Record<string, string> {
  const out: Record<string, string> = {
    "content-type": o.contentType, etag: `"${o.etag}"`, "last-modified": httpDate(o.lastModified), "accept-ranges": "bytes", ...o.headers,
  };
  for (const [k, v] of Object.entries(o.metadata ?? {})) out[`x-amz-meta-${k}`] = v;
  return out;
}

type Verdict = "ok" | "failed" | "not-modified";

const etagMatches = (list: string, etag: string) =>
  list.split(",").map((t) => t.trim().replace(/^W\//, "").replace(/^"|"$/g, "")).some((t) => t === "*" || t === etag);

/** Whole seconds, as HTTP dates carry them; NaN for a date that does not parse (the condition is then ignored). */
const seconds = (date: string) => Math.floor(Date.parse(date) / 1000);

/** If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since, in the order HTTP (and S3) weigh them. */
function preconditions(o: StoredObject, c: { match?: string; unmodifiedSince?: string; noneMatch?: string; modifiedSince?: string }): Verdict {
  const modified = seconds(o.lastModified);
  if (c.match !== undefined) {
    if (!etagMatches(c.match, o.etag)) return "failed";
  } else if (c.unmodifiedSince !== undefined && modified > seconds(c.unmodifiedSince)) {
    return "failed";
  }
  if (c.noneMatch !== undefined) {
    if (etagMatches(c.noneMatch, o.etag)) return "not-modified";
  } else if (c.modifiedSince !== undefined && modified <= seconds(c.modifiedSince)) {
    return "not-modified";
  }
  return "ok";
}

const preconditionFailed = (condition: string) =>
  s3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold", { Condition: condition });

/** `bytes=a-b`, `bytes=a-` or `bytes=-n`; anything else is ignored (the whole object), as HTTP says. */
function rangeOf(header: string | undefined, size: number): { start: number; end: number } | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  const unsatisfiable = () => s3Error("InvalidRange", "The requested range is not satisfiable", { RangeRequested: header!, ActualObjectSize: String(size) });
  if (m[1] === "") {
    const n = Number(m[2]);
    if (n === 0 || size === 0) throw unsatisfiable();
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== "" && Number(m[2]) < start) return undefined;
  if (start >= size) throw unsatisfiable();
  return { start, end };
}

/** The `partNumber` query parameter, 1 to 10,000, if given. */
export function partNumberOf(ctx: S3Ctx): number | undefined {
  const text = ctx.query.get("partNumber");
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= MAX_PART_NUMBER)) throw invalidArgument("partNumber", text, `Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive`);
  return n;
}

const OVERRIDES = ["content-type", "content-language", "expires", "cache-control", "content-disposition", "content-encoding"];

/** GetObject, and HeadObject (the same answer; the server sends no body to a HEAD). */
export function getObject(ctx: S3Ctx): S3Reply {
  const o = findObject(ctx.emu, bucketOf(ctx).id, ctx.key);
  if (!o) throw noSuchKey(ctx.key);
  const verdict = preconditions(o, {
    match: ctx.header("if-match"), unmodifiedSince: ctx.header("if-unmodified-since"),
    noneMatch: ctx.header("if-none-match"), modifiedSince: ctx.header("if-modified-since"),
  });
  if (verdict === "failed") throw preconditionFailed(ctx.header("if-match") !== undefined ? "If-Match" : "If-Unmodified-Since");
  if (verdict === "not-modified") return { status: 304, headers: { etag: `"${o.etag}"`, "last-modified": httpDate(o.lastModified) } };

  const headers = objectHeaders(o);
  const part = partNumberOf(ctx);
  let range = rangeOf(ctx.header("range"), o.size);
  if (part !== undefined) {
    if (range) throw s3Error("InvalidRequest", "Cannot specify both Range header and partNumber query parameter");
    const sizes = o.partSizes ?? [o.size];
    if (part > sizes.length) throw s3Error("InvalidPartNumber", "The requested partnumber is not satisfiable", { PartNumberRequested: String(part), ActualPartCount: String(sizes.length) });
    const start = sizes.slice(0, part - 1).reduce((a, b) => a + b, 0);
    if (o.partSizes) range = { start, end: start + sizes[part - 1] - 1 };
    headers["x-amz-mp-parts-count"] = String(sizes.length);
  }
  let status = 200;
  if (range) {
    status = 206;
    headers["content-range"] = `bytes ${range.start}-${range.end}/${o.size}`;
  } else if (o.checksum && ctx.header("x-amz-checksum-mode")?.toUpperCase() === "ENABLED") {
    headers[`x-amz-checksum-${o.checksum.algorithm}`] = o.checksum.value;
    headers["x-amz-checksum-type"] = "FULL_OBJECT";
  }
  for (const h of OVERRIDES) {
    const v = ctx.query.get(`response-${h}`);
    if (v !== undefined) headers[h] = v;
  }
  const [start, end] = range ? [range.start, range.end] : [0, o.size - 1];
  headers["content-length"] = String(end - start + 1);
  // The file is opened now: a body replaced or deleted meanwhile still streams whole.
  const body = ctx.method === "HEAD" ? undefined : o.size === 0 ? Buffer.alloc(0) : bodyStream(ctx.emu, o, start, end);
  return { status, headers, body };
}

/** Its conditions are checked before the body is read and again once it is in (another writer may have come first). */
export function putObject(ctx: S3Ctx): S3Reply {
  const b = bucketOf(ctx);
  const existing = findObject(ctx.emu, b.id, ctx.key);
  const noneMatch = ctx.header("if-none-match");
  const match = ctx.header("if-match");
  if (noneMatch !== undefined) {
    if (noneMatch.trim() !== "*") throw s3Error("NotImplemented", "A header you provided implies functionality that is not implemented: If-None-Match on a write takes only '*'", { Header: "If-None-Match" });
    if (existing) throw preconditionFailed("If-None-Match");
  }
  if (match !== undefined) {
    if (!existing) throw noSuchKey(ctx.key);
    if (!etagMatches(match, existing.etag)) throw preconditionFailed("If-Match");
  }
  const o = storeObject(ctx.emu, b, ctx.key, ctx.received ?? ctx.payload.body, attributesFrom(ctx));
  return { status: 200, headers: { etag: `"${o.etag}"`, ...checksumHeaders(ctx) } };
}

/** Echoes the checksum the client sent, as S3 does once it has checked it. */
export const checksumHeaders = (ctx: S3Ctx): Record<string, string> =>
  ctx.payload.checksum ? { [`x-amz-checksum-${ctx.payload.checksum.algorithm}`]: ctx.payload.checksum.value } : {};

/**
 * The object `x-amz-copy-source` names (`bucket/key` or `/bucket/key`, URL-encoded), which the
 * caller may read: its own workspace's, or a PUBLIC_READ bucket's; its conditions checked.
 */
export function copySource(ctx: S3Ctx): StoredObject {
  const raw = ctx.header("x-amz-copy-source")!;
  let text: string;
  try {
    text = decodeURIComponent(raw.split("?")[0]).replace(/^\//, "");
  } catch {
    throw invalidArgument("x-amz-copy-source", raw, "Copy Source must mention the source bucket and key: sourcebucket/sourcekey");
  }
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) {
    throw invalidArgument("x-amz-copy-source", raw, "Copy Source must mention the source bucket and key: sourcebucket/sourcekey");
  }
  const [name, key] = [text.slice(0, slash), text.slice(slash + 1)];
  const src = bucketNamed(ctx.emu, name);
  if (!src) throw noSuchBucket(name);
  if (src.workspaceId !== ctx.caller?.workspaceId && src.visibility !== "PUBLIC_READ") throw accessDenied();
  const o = findObject(ctx.emu, src.id, key);
  if (!o) throw noSuchKey(key);
  const verdict = preconditions(o, {
    match: ctx.header("x-amz-copy-source-if-match"), unmodifiedSince: ctx.header("x-amz-copy-source-if-unmodified-since"),
    noneMatch: ctx.header("x-amz-copy-source-if-none-match"), modifiedSince: ctx.header("x-amz-copy-source-if-modified-since"),
  });
  if (verdict !== "ok") throw preconditionFailed("x-amz-copy-source-If-*");
  return o;
}

export async function copyObject(ctx: S3Ctx): Promise<S3Reply> {
  const b = bucketOf(ctx);
  const src = copySource(ctx);
  const directive = (ctx.header("x-amz-metadata-directive") ?? "COPY").toUpperCase();
  if (directive !== "COPY" && directive !== "REPLACE") {
    throw invalidArgument("x-amz-metadata-directive", directive, "Unknown metadata directive: it is COPY or REPLACE");
  }
  if (src.bucketId === b.id && src.key === ctx.key && directive === "COPY") {
    throw s3Error("InvalidRequest", "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.");
  }
  const attrs: ObjectAttributes = directive === "REPLACE"
    ? attributesFrom(ctx, false)
    : { contentType: src.contentType, metadata: src.metadata, headers: src.headers, ...(src.checksum ? { checksum: src.checksum } : {}) };
  const body = await receive(ctx.emu, [bodyStream(ctx.emu, src)]);
  let o: StoredObject;
  try {
    o = storeObject(ctx.emu, b, ctx.key, body, attrs);
  } finally {
    await body.pending.discard();
  }
  return xmlReply("CopyObjectResult", [el("LastModified", xmlDate(o.lastModified)), el("ETag", `"${o.etag}"`)]);
}

export function deleteObject(ctx: S3Ctx): S3Reply {
  removeObject(ctx.emu, bucketOf(ctx).id, ctx.key);
  return { status: 204 };
}
