// A request's payload as S3 reads it: the x-amz-content-sha256 check, aws-chunked bodies (signed
// chunks, unsigned chunks, trailing checksums and their signature), Content-MD5 and x-amz-checksum-*.
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { s3Error } from "./errors";
import { EMPTY_SHA256, sameSignature, type Scope, scopeString, sha256Hex, sign } from "./sigv4";

/** What signed chunks chain from: the request's signature and signing key. */
export interface ChunkChain {
  key: Buffer;
  seed: string;
  amzDate: string;
  scope: Scope;
}

export interface Checksum {
  algorithm: string;
  value: string;
}

export interface Payload {
  body: Buffer;
  /** The x-amz-checksum-* the client sent (header or trailer), checked where the emulator can. */
  checksum?: Checksum;
  /** Whether Content-MD5 or a checksum came with the request (DeleteObjects wants one). */
  integrity: boolean;
}

const SIGNED_STREAM = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
const SIGNED_STREAM_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
const UNSIGNED_STREAM_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
const STREAMING = [SIGNED_STREAM, SIGNED_STREAM_TRAILER, UNSIGNED_STREAM_TRAILER];
export const CHECKSUMS = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256"] as const;

/** Reads the body the way its x-amz-content-sha256 says it was sent, checking what was signed. */
export function readPayload(raw: Buffer, payload: string, headers: Map<string, string[]>, chain?: ChunkChain): Payload {
  const header = (name: string) => headers.get(name)?.[0];
  let body = raw;
  let trailers = new Map<string, string>();
  if (STREAMING.includes(payload)) {
    const declared = header("x-amz-decoded-content-length");
    if (declared === undefined || !/^\d+$/.test(declared)) {
      throw s3Error("MissingContentLength", "You must provide the x-amz-decoded-content-length header with an aws-chunked body.");
    }
    ({ body, trailers } = decodeChunks(raw, payload === UNSIGNED_STREAM_TRAILER ? undefined : chain, payload !== SIGNED_STREAM));
    if (body.length !== Number(declared)) {
      throw s3Error("IncompleteBody", `You did not provide the number of bytes specified by the x-amz-decoded-content-length header (${declared}); the chunks held ${body.length}.`);
    }
  } else if (payload !== "UNSIGNED-PAYLOAD") {
    if (!/^[0-9a-f]{64}$/.test(payload)) {
      throw s3Error("InvalidArgument", "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.", {
        ArgumentName: "x-amz-content-sha256", ArgumentValue: payload,
      });
    }
    const computed = sha256Hex(raw);
    if (computed !== payload) {
      throw s3Error("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", {
        ClientComputedContentSHA256: payload, S3ComputedContentSHA256: computed,
      });
    }
  }
  const md5 = header("content-md5");
  if (md5 !== undefined) checkMd5(body, md5);
  const checksum = readChecksum(body, headers, trailers);
  return { body, checksum, integrity: md5 !== undefined || checksum !== undefined };
}

function checkMd5(body: Buffer, md5: string): void {
  const sent = Buffer.from(md5, "base64");
  if (sent.length !== 16 || sent.toString("base64") !== md5) throw s3Error("InvalidDigest", "The Content-MD5 you specified was invalid.", { "Content-MD5": md5 });
  const computed = createHash("md5").update(body).digest("base64");
  if (computed !== md5) {
    throw s3Error("BadDigest", "The Content-MD5 you specified did not match what we received.", { ExpectedDigest: md5, CalculatedDigest: computed });
  }
}

function readChecksum(body: Buffer, headers: Map<string, string[]>, trailers: Map<string, string>): Checksum | undefined {
  for (const algorithm of CHECKSUMS) {
    const name = `x-amz-checksum-${algorithm}`;
    const value = headers.get(name)?.[0] ?? trailers.get(name);
    if (value === undefined) continue;
    const computed = checksumOf(algorithm, body);
    if (computed !== undefined && computed !== value) {
      throw s3Error("BadDigest", `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`, { [`Checksum${algorithm.toUpperCase()}`]: value });
    }
    return { algorithm, value };
  }
  return undefined;
}

/** The base64 checksum S3 would compute; CRC64NVME is taken on trust (not computed). */
export function checksumOf(algorithm: string, body: Buffer): string | undefined {
  const be32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n >>> 0);
    return b.toString("base64");
  };
  switch (algorithm) {
    case "crc32": return be32(crc32(body));
    case "crc32c": return be32(crc32c(body));
    case "sha1": return createHash("sha1").update(body).digest("base64");
    case "sha256": return createHash("sha256").update(body).digest("base64");
    default: return undefined;
  }
}

let crc32cTable: Uint32Array | undefined;
function crc32c(data: Buffer): number {
  if (!crc32cTable) {
    crc32cTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
      crc32cTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = crc32cTable[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const incomplete = (m: string) => s3Error("IncompleteBody", `The aws-chunked body is malformed: ${m}`);

/**
 * Decodes `size[;chunk-signature=sig]\r\n data \r\n ... 0[;chunk-signature=sig]\r\n [trailers] \r\n`,
 * checking each chunk's signature against the previous one when the chunks are signed.
 */
export function decodeChunks(raw: Buffer, chain: ChunkChain | undefined, withTrailer: boolean): { body: Buffer; trailers: Map<string, string> } {
  const parts: Buffer[] = [];
  let at = 0;
  let previous = chain?.seed ?? "";
  const line = (): string => {
    const end = raw.indexOf("\r\n", at);
    if (end < 0) throw incomplete("a line does not end with CRLF");
    const text = raw.toString("latin1", at, end);
    at = end + 2;
    return text;
  };
  for (;;) {
    const head = line();
    const [sizeText, ...extensions] = head.split(";");
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw incomplete(`'${head.slice(0, 40)}' is not a chunk header`);
    const size = parseInt(sizeText, 16);
    if (at + size > raw.length) throw incomplete(`a chunk of ${size} bytes is cut short`);
    const data = raw.subarray(at, at + size);
    at += size;
    if (chain) {
      const sent = extensions.find((e) => e.startsWith("chunk-signature="))?.slice("chunk-signature=".length);
      if (!sent) throw s3Error("SignatureDoesNotMatch", "A chunk of a signed aws-chunked body has no chunk-signature.");
      const toSign = ["AWS4-HMAC-SHA256-PAYLOAD", chain.amzDate, scopeString(chain.scope), previous, EMPTY_SHA256, sha256Hex(data)].join("\n");
      if (!sameSignature(sign(chain.key, toSign), sent)) {
        throw s3Error("SignatureDoesNotMatch", "The chunk signature we calculated does not match the signature you provided.", { StringToSign: toSign, SignatureProvided: sent });
      }
      previous = sent;
    }
    if (size === 0) break;
    parts.push(data);
    if (raw.toString("latin1", at, at + 2) !== "\r\n") throw incomplete("a chunk's data is not followed by CRLF");
    at += 2;
  }
  const trailers = new Map<string, string>();
  if (withTrailer) {
    const lines: string[] = [];
    for (let l = at < raw.length ? line() : ""; l !== ""; l = at < raw.length ? line() : "") lines.push(l);
    let trailerSignature: string | undefined;
    for (const l of lines) {
      const colon = l.indexOf(":");
      if (colon < 0) throw incomplete(`trailer '${l.slice(0, 40)}' is not 'name:value'`);
      const name = l.slice(0, colon).trim().toLowerCase();
      const value = l.slice(colon + 1).trim();
      if (name === "x-amz-trailer-signature") trailerSignature = value;
      else trailers.set(name, value);
    }
    if (chain) {
      if (!trailerSignature) throw s3Error("SignatureDoesNotMatch", "The signed trailer has no x-amz-trailer-signature.");
      const canonical = [...trailers].map(([k, v]) => `${k}:${v}\n`).join("");
      const toSign = ["AWS4-HMAC-SHA256-TRAILER", chain.amzDate, scopeString(chain.scope), previous, sha256Hex(canonical)].join("\n");
      if (!sameSignature(sign(chain.key, toSign), trailerSignature)) {
        throw s3Error("SignatureDoesNotMatch", "The trailer signature we calculated does not match the signature you provided.", { StringToSign: toSign, SignatureProvided: trailerSignature });
      }
    }
  }
  return { body: Buffer.concat(parts), trailers };
}
