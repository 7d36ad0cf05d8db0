// Multipart upload handlers: CreateMultipartUpload, UploadPart (and UploadPartCopy),
// CompleteMultipartUpload, AbortMultipartUpload, ListParts and ListMultipartUploads.
import {
  abortUpload, bodyStream, completeUpload, createUpload, listKeys, MAX_PART_NUMBER, partsOf, putPart, receive, uploadOf, uploadsOf,
} from "../models/objects";
import { endpointOf } from "../models/storage";
import { bucketOf, countParam, encoderFor, type S3Ctx, type S3Reply, xmlDate, xmlReply } from "./context";
import { invalidArgument, s3Error } from "./errors";
import { attributesFrom, checksumHeaders, copySource, partNumberOf } from "./objects";
import { childrenNamed, childText, el, parseXml } from "./xml";
import { uriEncode } from "./sigv4";

const owner = (ctx: S3Ctx) => [el("ID", bucketOf(ctx).workspaceId), el("DisplayName", bucketOf(ctx).workspaceId)];

export function createMultipartUpload(ctx: S3Ctx): S3Reply {
  const b = bucketOf(ctx);
  const u = createUpload(ctx.emu, b, ctx.key, attributesFrom(ctx, false));
  return xmlReply("InitiateMultipartUploadResult", [el("Bucket", b.name), el("Key", ctx.key), el("UploadId", u.id)]);
}

/** UploadPart, or UploadPartCopy when x-amz-copy-source names the part's bytes (optionally a range of them). */
export async function uploadPart(ctx: S3Ctx): Promise<S3Reply> {
  const n = partNumberOf(ctx)!; // the routes send only requests with a partNumber here
  const u = uploadOf(ctx.emu, bucketOf(ctx), ctx.key, ctx.query.get("uploadId")!);
  if (ctx.header("x-amz-copy-source") === undefined) {
    const p = putPart(ctx.emu, u, n, ctx.received!);
    return { status: 200, headers: { etag: `"${p.etag}"`, ...checksumHeaders(ctx) } };
  }
  const src = copySource(ctx);
  let [start, end] = [0, src.size - 1];
  const range = ctx.header("x-amz-copy-source-range");
  if (range !== undefined) {
    const m = /^bytes=(\d+)-(\d+)$/.exec(range.trim());
    if (!m || Number(m[2]) < Number(m[1])) {
      throw invalidArgument("x-amz-copy-source-range", range, "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy");
    }
    if (Number(m[2]) >= src.size) {
      throw s3Error("InvalidRange", "The requested range is not satisfiable", { RangeRequested: range, ActualObjectSize: String(src.size) });
    }
    [start, end] = [Number(m[1]), Number(m[2])];
  }
  const body = await receive(ctx.emu, end < start ? [] : [bodyStream(ctx.emu, src, start, end)]);
  let p: ReturnType<typeof putPart>;
  try {
    p = putPart(ctx.emu, u, n, body);
  } finally {
    await body.pending.discard();
  }
  return xmlReply("CopyPartResult", [el("LastModified", xmlDate(p.lastModified)), el("ETag", `"${p.etag}"`)]);
}

export async function completeMultipartUpload(ctx: S3Ctx): Promise<S3Reply> {
  const b = bucketOf(ctx);
  const u = uploadOf(ctx.emu, b, ctx.key, ctx.query.get("uploadId")!);
  const doc = parseXml(ctx.payload.body.toString("utf8"));
  if (doc.name !== "CompleteMultipartUpload") throw s3Error("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: the root element is not CompleteMultipartUpload");
  const listed = childrenNamed(doc, "Part").map((p) => {
    const num = childText(p, "PartNumber")?.trim() ?? "";
    const etag = childText(p, "ETag");
    if (!/^\d+$/.test(num) || etag === undefined) {
      throw s3Error("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: each Part needs a PartNumber and an ETag");
    }
    return { partNumber: Number(num), etag };
  });
  const o = await completeUpload(ctx.emu, b, u, listed);
  const location = `${endpointOf(ctx.emu, b.region)}/${b.name}/${o.key.split("/").map(uriEncode).join("/")}`;
  return xmlReply("CompleteMultipartUploadResult", [el("Location", location), el("Bucket", b.name), el("Key", o.key), el("ETag", `"${o.etag}"`)]);
}

export function abortMultipartUpload(ctx: S3Ctx): S3Reply {
  abortUpload(ctx.emu, uploadOf(ctx.emu, bucketOf(ctx), ctx.key, ctx.query.get("uploadId")!));
  return { status: 204 };
}

export function listParts(ctx: S3Ctx): S3Reply {
  const b = bucketOf(ctx);
  const u = uploadOf(ctx.emu, b, ctx.key, ctx.query.get("uploadId")!);
  const max = countParam(ctx, "max-parts", 1000, 1000);
  const marker = countParam(ctx, "part-number-marker", 0, MAX_PART_NUMBER);
  const after = partsOf(ctx.emu, u.id).filter((p) => p.partNumber > marker);
  const shown = after.slice(0, max);
  const truncated = after.length > shown.length;
  return xmlReply("ListPartsResult", [
    el("Bucket", b.name), el("Key", u.key), el("UploadId", u.id),
    el("PartNumberMarker", marker), el("NextPartNumberMarker", shown.length ? shown[shown.length - 1].partNumber : marker),
    el("MaxParts", max), el("IsTruncated", truncated),
    ...shown.map((p) => el("Part", [el("PartNumber", p.partNumber), el("LastModified", xmlDate(p.lastModified)), el("ETag", `"${p.etag}"`), el("Size", p.size)])),
    el("Initiator", owner(ctx)), el("Owner", owner(ctx)), el("StorageClass", "STANDARD"),
  ]);
}

/** Uploads under way in the bucket: after key-marker (and upload-id-marker), under prefix, rolled up by delimiter. */
export function listMultipartUploads(ctx: S3Ctx): S3Reply {
  const b = bucketOf(ctx);
  const encode = encoderFor(ctx);
  const q = ctx.query;
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") || undefined;
  const max = countParam(ctx, "max-uploads", 1000, 1000);
  const keyMarker = q.get("key-marker") ?? "";
  const idMarker = q.get("upload-id-marker") ?? "";
  let rows = uploadsOf(ctx.emu, b.id);
  let after: string | undefined;
  if (keyMarker !== "") {
    // Further uploads of the marker's key come after its upload id; otherwise the page starts past the key.
    const at = idMarker ? rows.findIndex((u) => u.key === keyMarker && u.id === idMarker) : -1;
    if (at >= 0) rows = rows.slice(at + 1);
    else after = keyMarker;
  }
  const page = listKeys(rows, { prefix, delimiter, after, maxKeys: max });
  const lastUpload = page.contents[page.contents.length - 1];
  const endsOnUpload = lastUpload !== undefined && page.last === lastUpload.key;
  return xmlReply("ListMultipartUploadsResult", [
    el("Bucket", b.name), el("KeyMarker", encode(keyMarker)), el("UploadIdMarker", idMarker),
    ...(page.truncated ? [el("NextKeyMarker", encode(page.last ?? "")), el("NextUploadIdMarker", endsOnUpload ? lastUpload.id : "")] : []),
    el("Prefix", encode(prefix)), delimiter ? el("Delimiter", encode(delimiter)) : "",
    el("MaxUploads", max), el("IsTruncated", page.truncated),
    ...page.contents.map((u) => el("Upload", [
      el("Key", encode(u.key)), el("UploadId", u.id), el("Initiator", owner(ctx)), el("Owner", owner(ctx)),
      el("StorageClass", "STANDARD"), el("Initiated", xmlDate(u.initiated)),
    ])),
    ...page.prefixes.map((p) => el("CommonPrefixes", [el("Prefix", encode(p))])),
  ]);
}
