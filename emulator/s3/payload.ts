// A request's payload as S3 reads it: the x-amz-content-sha256 check, aws-chunked bodies (signed
// chunks, unsigned chunks, trailing checksums and their signature), Content-MD5 and x-amz-checksum-*.
// A PayloadReader takes the body piece by piece, so an upload streams to its file (routes.ts).
import { createHash, type Hash } from "node:crypto";
import { crc32 } from "node:zlib";
import { type ChunkChain, ChunkDecoder } from "./chunks";
import { s3Error } from "./errors";

export { type ChunkChain, decodeChunks } from "./chunks";

export interface Checksum {
  algorithm: string;
  value: string;
}

export interface Payload {
  /** The bytes, for a body read whole (XML documents); empty for one streamed to a file. */
  body: Buffer;
  /** The x-amz-checksum-* the client sent (header or trailer), checked where the emulator can. */
  checksum?: Checksum;
  /** Whether Content-MD5 or a checksum came with the request (DeleteObjects wants one). */
  integrity: boolean;
  /** Decoded size and MD5 hex. */
  size: number;
  md5: string;
}

const SIGNED_STREAM = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
const SIGNED_STREAM_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
const UNSIGNED_STREAM_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
const STREAMING = [SIGNED_STREAM, SIGNED_STREAM_TRAILER, UNSIGNED_STREAM_TRAILER];
export const CHECKSUMS = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256"] as const;

/** A checksum computed as the bytes go by. */
interface Running {
  update(b: Buffer): void;
  digest(): string;
}

function running(algorithm: string): Running | undefined {
  const be32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n >>> 0);
    return b.toString("base64");
  };
  if (algorithm === "crc32") {
    let v = 0;
    return { update: (b) => (v = crc32(b, v)), digest: () => be32(v) };
  }
  if (algorithm === "crc32c") {
    let v = 0;
    return { update: (b) => (v = crc32c(b, v)), digest: () => be32(v) };
  }
  if (algorithm === "sha1" || algorithm === "sha256") {
    const h = createHash(algorithm);
    return { update: (b) => h.update(b), digest: () => h.digest("base64") };
  }
  return undefined;
}

/** Reads a body the way its x-amz-content-sha256 says it was sent, checking what was signed. */
export class PayloadReader {
  private readonly decoder?: ChunkDecoder;
  private readonly rawHash?: Hash;
  private readonly md5 = createHash("md5");
  private readonly sums = new Map<string, Running>();
  private size = 0;

  constructor(private readonly payload: string, private readonly headers: Map<string, string[]>, chain?: ChunkChain) {
    const header = (name: string) => headers.get(name)?.[0];
    if (STREAMING.includes(payload)) {
      const declared = header("x-amz-decoded-content-length");
      if (declared === undefined || !/^\d+$/.test(declared)) {
        throw s3Error("MissingContentLength", "You must provide the x-amz-decoded-content-length header with an aws-chunked body.");
      }
      this.decoder = new ChunkDecoder(payload === UNSIGNED_STREAM_TRAILER ? undefined : chain, payload !== SIGNED_STREAM);
    } else if (payload !== "UNSIGNED-PAYLOAD") {
      if (!/^[0-9a-f]{64}$/.test(payload)) {
        throw s3Error("InvalidArgument", "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.", {
          ArgumentName: "x-amz-content-sha256", ArgumentValue: payload,
        });
      }
      this.rawHash = createHash("sha256");
    }
    // The checksums the client said it sends, in a header or (x-amz-trailer) a trailer.
    const declared = [...CHECKSUMS.filter((a) => headers.has(`x-amz-checksum-${a}`)), ...(header("x-amz-trailer") ?? "").toLowerCase().split(",").map((t) => t.trim().replace(/^x-amz-checksum-/, ""))];
    for (const a of declared) {
      const r = running(a);
      if (r && !this.sums.has(a)) this.sums.set(a, r);
    }
  }

  /** The decoded bytes of this piece of the raw body. */
  push(raw: Buffer): Buffer[] {
    this.rawHash?.update(raw);
    const data = this.decoder ? this.decoder.push(raw) : [raw];
    for (const d of data) {
      this.size += d.length;
      this.md5.update(d);
      for (const s of this.sums.values()) s.update(d);
    }
    return data;
  }

  /** Once the whole body has been pushed: every check, then what the request carried. */
  end(): Omit<Payload, "body"> {
    const header = (name: string) => this.headers.get(name)?.[0];
    let trailers = new Map<string, string>();
    if (this.decoder) {
      trailers = this.decoder.end();
      const declared = header("x-amz-decoded-content-length");
      if (this.size !== Number(declared)) {
        throw s3Error("IncompleteBody", `You did not provide the number of bytes specified by the x-amz-decoded-content-length header (${declared}); the chunks held ${this.size}.`);
      }
    } else if (this.rawHash) {
      const computed = this.rawHash.digest("hex");
      if (computed !== this.payload) {
        throw s3Error("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", {
          ClientComputedContentSHA256: this.payload, S3ComputedContentSHA256: computed,
        });
      }
    }
    const md5 = this.md5.digest();
    const contentMd5 = header("content-md5");
    if (contentMd5 !== undefined) checkMd5(md5, contentMd5);
    const checksum = this.readChecksum(trailers);
    return { checksum, integrity: contentMd5 !== undefined || checksum !== undefined, size: this.size, md5: md5.toString("hex") };
  }

  private readChecksum(trailers: Map<string, string>): Checksum | undefined {
    for (const algorithm of CHECKSUMS) {
      const name = `x-amz-checksum-${algorithm}`;
      const value = this.headers.get(name)?.[0] ?? trailers.get(name);
      if (value === undefined) continue;
      const computed = this.sums.get(algorithm)?.digest();
      if (computed !== undefined && computed !== value) {
        throw s3Error("BadDigest", `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`, { [`Checksum${algorithm.toUpperCase()}`]: value });
      }
      return { algorithm, value };
    }
    return undefined;
  }
}

/** A whole body at once (XML documents, tests). */
export function readPayload(raw: Buffer, payload: string, headers: Map<string, string[]>, chain?: ChunkChain): Payload {
  const r = new PayloadReader(payload, headers, chain);
  const body = Buffer.concat(r.push(raw));
  return { body, ...r.end() };
}

function checkMd5(computed: Buffer, md5: string): void {
  const sent = Buffer.from(md5, "base64");
  if (sent.length !== 16 || sent.toString("base64") !== md5) throw s3Error("InvalidDigest", "The Content-MD5 you specified was invalid.", { "Content-MD5": md5 });
  if (computed.toString("base64") !== md5) {
    throw s3Error("BadDigest", "The Content-MD5 you specified did not match what we received.", { ExpectedDigest: md5, CalculatedDigest: computed.toString("base64") });
  }
}

let crc32cTable: Uint32Array | undefined;
function crc32c(data: Buffer, previous = 0): number {
  if (!crc32cTable) {
    crc32cTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
      crc32cTable[n] = c >>> 0;
    }
  }
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) crc = crc32cTable[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
