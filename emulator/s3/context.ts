// What an S3 handler gets (the request, authenticated, with its bucket and payload read) and what
// it returns; the routes (routes.ts) turn that into the HTTP answer.
import type { Readable } from "node:stream";
import type { Emu } from "../emu";
import type { ReceivedBody } from "../models/objects";
import type { Bucket, StorageAccessKey } from "../models/storage";
import { invalidArgument } from "./errors";
import type { Payload } from "./payload";
import { xmlDoc } from "./xml";

export interface S3Ctx {
  emu: Emu;
  method: string;
  /** The endpoint's region (`/_storage/{region}`). */
  region: string;
  /** The bucket the path names, absent for service requests (ListBuckets). */
  bucket?: Bucket;
  /** The object key the path names; "" for bucket requests. */
  key: string;
  /** Decoded query parameters. */
  query: Map<string, string>;
  header(name: string): string | undefined;
  /** Header names and values, lowercased names, every occurrence kept. */
  headers: Map<string, string[]>;
  payload: Payload;
  /** An object's or a part's bytes, streamed to a file (PutObject, UploadPart): stored with `commit`. */
  received?: ReceivedBody;
  /** The storage access key that signed the request; undefined for an anonymous one. */
  caller?: StorageAccessKey;
  requestId: string;
}

export interface S3Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
}

export const xmlReply = (root: string, children: string[], headers: Record<string, string> = {}): S3Reply => ({
  status: 200, headers: { "content-type": "application/xml", ...headers }, body: xmlDoc(root, children),
});

/** The bucket of a bucket or object request (the routes only dispatch those with one). */
export const bucketOf = (ctx: S3Ctx): Bucket => ctx.bucket!;

/** S3's HTTP dates (Last-Modified) and its XML dates (LastModified), from our ISO times. */
export const httpDate = (iso: string) => new Date(iso).toUTCString();
export const xmlDate = (iso: string) => new Date(iso).toISOString();

/** A non-negative integer query parameter (max-keys, max-parts, ...): `fallback` when absent, at most `max`. */
export function countParam(ctx: S3Ctx, name: string, fallback: number, max: number): number {
  const text = ctx.query.get(name);
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text)) throw invalidArgument(name, text, `Provided ${name} not an integer or within integer range`);
  return Math.min(Number(text), max);
}

/** `encoding-type=url` asks for keys URL-encoded in the answer (keys may hold characters XML cannot). */
export function encoderFor(ctx: S3Ctx): (s: string) => string {
  const type = ctx.query.get("encoding-type");
  if (type === undefined) return (s) => s;
  if (type !== "url") throw invalidArgument("encoding-type", type, "Invalid Encoding Method specified in Request");
  return (s) => encodeURIComponent(s).replace(/%2F/g, "/");
}
