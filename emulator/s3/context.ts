// What an S3 handler gets (the request, authenticated, with its bucket and payload read) and what
// it returns; the routes (routes.ts) turn that into the HTTP answer.
import type { Emu } from "../emu";
import type { Bucket, StorageAccessKey } from "../models/storage";
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
  /** The storage access key that signed the request; undefined for an anonymous one. */
  caller?: StorageAccessKey;
  requestId: string;
}

export interface S3Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export const xmlReply = (root: string, children: string[], headers: Record<string, string> = {}): S3Reply => ({
  status: 200, headers: { "content-type": "application/xml", ...headers }, body: xmlDoc(root, children),
});

/** The bucket of a bucket or object request (the routes only dispatch those with one). */
export const bucketOf = (ctx: S3Ctx): Bucket => ctx.bucket!;

/** S3's HTTP dates (Last-Modified) and its XML dates (LastModified), from our ISO times. */
export const httpDate = (iso: string) => new Date(iso).toUTCString();
export const xmlDate = (iso: string) => new Date(iso).toISOString();
