// The objects buckets hold, and multipart uploads under way: rows of the store (their metadata),
// each naming its body file (blobs.ts), with S3's rules for keys, listings and completing an upload.
import { createHash } from "node:crypto";
import { blobsOf } from "../blobs";
import type { Emu } from "../emu";
import { bodyStream, receive as receiveBody, type ReceivedBody } from "./bodies";

export { bodyStream, type ReceivedBody } from "./bodies";
import { newId } from "../store";
import { noSuchUpload, s3Error } from "../s3/errors";

/** What objects need of a bucket. */
export interface BucketRef {
  id: string;
  name: string;
}

/** How an object was stored: its type, user metadata, the headers it is served with, its checksum. */
export interface ObjectAttributes {
  contentType: string;
  /** x-amz-meta-* names (lowercase, without the prefix) and values. */
  metadata?: Record<string, string>;
  /** cache-control, content-disposition, content-encoding, content-language, expires. */
  headers?: Record<string, string>;
  /** The x-amz-checksum-* sent with a single-part upload. */
  checksum?: { algorithm: string; value: string };
}

export interface StoredObject extends ObjectAttributes {
  id: string;
  bucketId: string;
  key: string;
  /** The body file (blobs.ts). */
  blob: string;
  size: number;
  /** MD5 hex; `md5-of-md5s-N` for an object completed from N parts. */
  etag: string;
  lastModified: string;
  /** Sizes of the parts of a multipart object, in order (GET ?partNumber=). */
  partSizes?: number[];
}

export interface Upload extends ObjectAttributes {
  id: string;
  bucketId: string;
  key: string;
  initiated: string;
}

export interface UploadPart {
  /** `${uploadId}/${partNumber}` */
  id: string;
  uploadId: string;
  partNumber: number;
  blob: string;
  size: number;
  etag: string;
  lastModified: string;
}

export const MAX_KEY_BYTES = 1024;
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** The largest object (or part) the emulator keeps. */
export const MAX_OBJECT_BYTES = 256 * 1024 * 1024;
export const MAX_PART_NUMBER = 10_000;

export const objects = (emu: Emu) => emu.store.table<StoredObject>("bucketObjects");
/** A bucket's objects by key. */
export const objectsByKey = (emu: Emu) => objects(emu).index("key", { group: (o) => o.bucketId, place: (o) => o.key });
const uploads = (emu: Emu) => emu.store.table<Upload>("bucketUploads");
const parts = (emu: Emu) => emu.store.table<UploadPart>("bucketUploadParts");

const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
/** S3 orders keys by their bytes; UTF-16 order agrees for every key without astral characters. */
const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function checkKey(key: string): void {
  const bytes = Buffer.byteLength(key);
  if (bytes === 0 || bytes > MAX_KEY_BYTES) {
    throw s3Error("KeyTooLongError", `key: must be 1 to ${MAX_KEY_BYTES} bytes in UTF-8 (this one is ${bytes})`, { Size: String(bytes), MaxSizeAllowed: String(MAX_KEY_BYTES) });
  }
}

function checkSize(size: number): void {
  if (size > MAX_OBJECT_BYTES) {
    throw s3Error("EntityTooLarge", `Your proposed upload exceeds the maximum allowed size: objects are at most ${MAX_OBJECT_BYTES} bytes in the emulator`, {
      ProposedSize: String(size), MaxSizeAllowed: String(MAX_OBJECT_BYTES),
    });
  }
}

// ---- objects ----
export function objectsOf(emu: Emu, bucketId: string): StoredObject[] {
  return objectsByKey(emu).list(bucketId);
}

export const objectCount = (emu: Emu, bucketId: string): number => objectsByKey(emu).count(bucketId);

export function findObject(emu: Emu, bucketId: string, key: string): StoredObject | undefined {
  return objectsByKey(emu).first(bucketId, key);
}

/** Streams bytes into a new body file, within the size an object may have. */
export const receive = (emu: Emu, sources: Parameters<typeof receiveBody>[1]) => receiveBody(emu, sources, checkSize);

/** Stores (or replaces) an object; `attrs` is its content type, or all its attributes. */
export function putObject(emu: Emu, b: BucketRef, key: string, body: Buffer | ReceivedBody, attrs: string | ObjectAttributes): StoredObject {
  checkKey(key);
  const size = Buffer.isBuffer(body) ? body.length : body.size;
  checkSize(size);
  const a = typeof attrs === "string" ? { contentType: attrs } : attrs;
  const blob = Buffer.isBuffer(body) ? blobsOf(emu).writeSync(body) : body.pending.commit();
  return storeObject(emu, b, key, { blob, size }, a, Buffer.isBuffer(body) ? md5(body) : body.md5);
}

function storeObject(emu: Emu, b: BucketRef, key: string, body: { blob: string; size: number }, a: ObjectAttributes, etag: string, partSizes?: number[]): StoredObject {
  const existing = findObject(emu, b.id, key);
  const replaced = existing?.blob;
  const o = objects(emu).insert({
    id: existing?.id ?? newId(), bucketId: b.id, key, blob: body.blob, size: body.size, etag, lastModified: emu.now(),
    contentType: a.contentType, metadata: a.metadata ?? {}, headers: a.headers ?? {},
    ...(a.checksum ? { checksum: a.checksum } : {}), ...(partSizes ? { partSizes } : {}),
  });
  blobsOf(emu).release(emu, replaced);
  return o;
}

/** Deleting a key that is not there succeeds, as in S3. */
export function deleteObject(emu: Emu, bucketId: string, key: string): void {
  const o = findObject(emu, bucketId, key);
  if (!o) return;
  const blob = o.blob;
  objects(emu).delete(o.id);
  blobsOf(emu).release(emu, blob);
}

export interface Listing {
  contents: StoredObject[];
  prefixes: string[];
  truncated: boolean;
  /** The last key or common prefix listed, where the next page starts after. */
  last?: string;
}

/**
 * One page of keys after `after`, in byte order: keys under `prefix`, those holding `delimiter`
 * past the prefix rolled up into common prefixes (each counted once, against `maxKeys` too).
 */
export function listObjects(emu: Emu, bucketId: string, o: { prefix: string; delimiter?: string; after?: string; maxKeys: number }): Listing {
  // Starts at the later of the prefix and the key listed last, so a page costs what it lists.
  const from = o.after !== undefined && o.after > o.prefix ? o.after : o.prefix;
  return listKeys(objectsByKey(emu).rows(bucketId, { after: { id: "", place: from, seq: from === o.after ? Infinity : -Infinity } }), o);
}

export function listKeys<T extends { key: string }>(rows: Iterable<T>, o: { prefix: string; delimiter?: string; after?: string; maxKeys: number }): Omit<Listing, "contents"> & { contents: T[] } {
  const out: Omit<Listing, "contents"> & { contents: T[] } = { contents: [], prefixes: [], truncated: false };
  if (o.maxKeys === 0) return out;
  const after = o.after ?? "";
  let count = 0;
  for (const row of rows) {
    if (row.key > o.prefix && !row.key.startsWith(o.prefix)) break;
    if (!row.key.startsWith(o.prefix) || row.key <= after) continue;
    const cut = o.delimiter ? row.key.indexOf(o.delimiter, o.prefix.length) : -1;
    const common = cut >= 0 ? row.key.slice(0, cut + o.delimiter!.length) : undefined;
    if (common !== undefined && (common <= after || common === out.prefixes[out.prefixes.length - 1])) continue;
    if (count === o.maxKeys) {
      out.truncated = true;
      break;
    }
    count += 1;
    if (common !== undefined) out.prefixes.push(common);
    else out.contents.push(row);
    out.last = common ?? row.key;
  }
  return out;
}

// ---- multipart uploads ----
export function createUpload(emu: Emu, b: BucketRef, key: string, attrs: ObjectAttributes): Upload {
  checkKey(key);
  return uploads(emu).insert({ id: newId().replace(/-/g, ""), bucketId: b.id, key, initiated: emu.now(), ...attrs });
}

/** The upload of this bucket and key; NoSuchUpload otherwise (aborted, completed or never made). */
export function uploadOf(emu: Emu, b: BucketRef, key: string, uploadId: string): Upload {
  const u = uploads(emu).get(uploadId);
  if (!u || u.bucketId !== b.id || u.key !== key) throw noSuchUpload(uploadId);
  return u;
}

export function uploadsOf(emu: Emu, bucketId: string): Upload[] {
  return uploads(emu).where((u) => u.bucketId === bucketId).sort((a, b) => byKey(a, b) || (a.initiated < b.initiated ? -1 : a.initiated > b.initiated ? 1 : 0));
}

export function putPart(emu: Emu, u: Upload, partNumber: number, body: ReceivedBody): UploadPart {
  checkSize(body.size);
  // The upload may have been completed or aborted while the part streamed in.
  if (!uploads(emu).has(u.id)) throw noSuchUpload(u.id);
  const id = `${u.id}/${partNumber}`;
  const replaced = parts(emu).get(id)?.blob;
  const p = parts(emu).insert({
    id, uploadId: u.id, partNumber, blob: body.pending.commit(), size: body.size, etag: body.md5, lastModified: emu.now(),
  });
  blobsOf(emu).release(emu, replaced);
  return p;
}

export function partsOf(emu: Emu, uploadId: string): UploadPart[] {
  return parts(emu).where((p) => p.uploadId === uploadId).sort((a, b) => a.partNumber - b.partNumber);
}

const unquote = (etag: string) => etag.trim().replace(/^"|"$/g, "");

/**
 * Joins the listed parts into the object: numbers ascending, each uploaded with that ETag, each but
 * the last at least 5 MiB. The ETag is the MD5 of the parts' MD5s, then `-N`.
 */
export async function completeUpload(emu: Emu, b: BucketRef, u: Upload, listed: { partNumber: number; etag: string }[]): Promise<StoredObject> {
  if (listed.length === 0) throw s3Error("InvalidRequest", "You must specify at least one part");
  const chosen: UploadPart[] = [];
  listed.forEach((l, i) => {
    if (i > 0 && l.partNumber <= listed[i - 1].partNumber) {
      throw s3Error("InvalidPartOrder", "The list of parts was not in ascending order. The parts list must be specified in order of the part number.", { UploadId: u.id });
    }
    const p = parts(emu).get(`${u.id}/${l.partNumber}`);
    if (!p || p.etag !== unquote(l.etag)) {
      throw s3Error("InvalidPart", "One or more of the specified parts could not be found. The part might not have been uploaded, or the specified entity tag might not have matched the part's entity tag.", {
        UploadId: u.id, PartNumber: String(l.partNumber), ETag: unquote(l.etag),
      });
    }
    chosen.push(p);
  });
  chosen.slice(0, -1).forEach((p) => {
    if (p.size < MIN_PART_BYTES) {
      throw s3Error("EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.", {
        ProposedSize: String(p.size), MinSizeAllowed: String(MIN_PART_BYTES), PartNumber: String(p.partNumber), ETag: p.etag,
      });
    }
  });
  checkSize(chosen.reduce((n, p) => n + p.size, 0));
  const refs = chosen.map((p) => p.blob);
  const etag = `${createHash("md5").update(Buffer.concat(chosen.map((p) => Buffer.from(p.etag, "hex")))).digest("hex")}-${chosen.length}`;
  let body: ReceivedBody;
  try {
    body = await receive(emu, refs.map((blob) => () => bodyStream(emu, { blob })));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw noSuchUpload(u.id);
    throw err;
  }
  // Completed, aborted or given other parts while the parts were joined: this completion loses.
  const now = uploads(emu).has(u.id) ? refs.map((_, i) => parts(emu).get(`${u.id}/${chosen[i].partNumber}`)?.blob) : [];
  if (now.length !== refs.length || now.some((r, i) => r !== refs[i])) {
    await body.pending.discard();
    throw noSuchUpload(u.id);
  }
  const { contentType, metadata, headers } = u;
  const o = storeObject(emu, b, u.key, { blob: body.pending.commit(), size: body.size }, { contentType, metadata, headers }, etag, chosen.map((p) => p.size));
  abortUpload(emu, u);
  return o;
}

export function abortUpload(emu: Emu, u: Upload): void {
  for (const p of partsOf(emu, u.id)) {
    const blob = p.blob;
    parts(emu).delete(p.id);
    blobsOf(emu).release(emu, blob);
  }
  uploads(emu).delete(u.id);
}

/** Everything a bucket holds, for its deletion: objects and uploads under way. */
export function deleteContents(emu: Emu, bucketId: string): void {
  for (const o of objectsOf(emu, bucketId)) deleteObject(emu, bucketId, o.key);
  for (const u of uploadsOf(emu, bucketId)) abortUpload(emu, u);
}

export const objectView = (o: StoredObject) => ({
  key: o.key, size: o.size, etag: o.etag, contentType: o.contentType, lastModified: o.lastModified,
});
