// aws-chunked bodies decoded as they arrive, so an object of any size streams to its file:
// `size[;chunk-signature=sig]\r\n data \r\n ... 0[;chunk-signature=sig]\r\n [trailers] \r\n`, each
// chunk's signature checked against the previous one when the chunks are signed. Data is handed on
// before its chunk's signature is checked; a bad signature fails the request and its file is dropped.
import { createHash, type Hash } from "node:crypto";
import { s3Error } from "./errors";
import { EMPTY_SHA256, sameSignature, type Scope, scopeString, sha256Hex, sign } from "./sigv4";

/** What signed chunks chain from: the request's signature and signing key. */
export interface ChunkChain {
  key: Buffer;
  seed: string;
  amzDate: string;
  scope: Scope;
}

const MAX_LINE = 4096;
const MAX_TRAILERS = 16 * 1024;

export const incomplete = (m: string) => s3Error("IncompleteBody", `The aws-chunked body is malformed: ${m}`);

export class ChunkDecoder {
  private state: "header" | "data" | "crlf" | "trailers" | "done" = "header";
  private carry = Buffer.alloc(0);
  private remaining = 0;
  private size = 0;
  private sent?: string;
  private hash?: Hash;
  private previous: string;
  private trailerBytes: Buffer[] = [];
  private trailerLength = 0;

  constructor(private readonly chain: ChunkChain | undefined, private readonly withTrailer: boolean) {
    this.previous = chain?.seed ?? "";
  }

  /** The data bytes of this piece of the body. */
  push(input: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let buf = this.carry.length ? Buffer.concat([this.carry, input]) : input;
    this.carry = Buffer.alloc(0);
    while (buf.length > 0) {
      if (this.state === "header") {
        const end = buf.indexOf("\r\n");
        if (end < 0) {
          if (buf.length > MAX_LINE) throw incomplete("a line does not end with CRLF");
          this.carry = Buffer.from(buf);
          return out;
        }
        this.header(buf.toString("latin1", 0, end));
        buf = buf.subarray(end + 2);
      } else if (this.state === "data") {
        const data = buf.subarray(0, this.remaining);
        this.hash?.update(data);
        if (data.length) out.push(data);
        this.remaining -= data.length;
        buf = buf.subarray(data.length);
        if (this.remaining === 0) {
          this.verify();
          this.state = "crlf";
        }
      } else if (this.state === "crlf") {
        if (buf.length < 2) {
          this.carry = Buffer.from(buf);
          return out;
        }
        if (buf.toString("latin1", 0, 2) !== "\r\n") throw incomplete("a chunk's data is not followed by CRLF");
        buf = buf.subarray(2);
        this.state = "header";
      } else if (this.state === "trailers") {
        this.trailerLength += buf.length;
        if (this.trailerLength > MAX_TRAILERS) throw incomplete("the trailers are too long");
        this.trailerBytes.push(Buffer.from(buf));
        return out;
      } else {
        return out; // after the last chunk without trailers: ignored, as before
      }
    }
    return out;
  }

  /** The trailers, once the whole body has been pushed; throws if it was cut short. */
  end(): Map<string, string> {
    if (this.state === "data") throw incomplete(`a chunk of ${this.size} bytes is cut short`);
    if (this.state === "header" || this.state === "crlf") throw incomplete("a line does not end with CRLF");
    const trailers = new Map<string, string>();
    if (this.state !== "trailers") return trailers;
    const raw = Buffer.concat(this.trailerBytes).toString("latin1");
    let trailerSignature: string | undefined;
    for (const l of raw.split("\r\n")) {
      if (l === "") break;
      const colon = l.indexOf(":");
      if (colon < 0) throw incomplete(`trailer '${l.slice(0, 40)}' is not 'name:value'`);
      const name = l.slice(0, colon).trim().toLowerCase();
      const value = l.slice(colon + 1).trim();
      if (name === "x-amz-trailer-signature") trailerSignature = value;
      else trailers.set(name, value);
    }
    if (this.chain) {
      if (!trailerSignature) throw s3Error("SignatureDoesNotMatch", "The signed trailer has no x-amz-trailer-signature.");
      const canonical = [...trailers].map(([k, v]) => `${k}:${v}\n`).join("");
      const toSign = ["AWS4-HMAC-SHA256-TRAILER", this.chain.amzDate, scopeString(this.chain.scope), this.previous, sha256Hex(canonical)].join("\n");
      if (!sameSignature(sign(this.chain.key, toSign), trailerSignature)) {
        throw s3Error("SignatureDoesNotMatch", "The trailer signature we calculated does not match the signature you provided.", { StringToSign: toSign, SignatureProvided: trailerSignature });
      }
    }
    return trailers;
  }

  private header(head: string): void {
    const [sizeText, ...extensions] = head.split(";");
    if (!/^[0-9a-fA-F]+$/.test(sizeText) || sizeText.length > 12) throw incomplete(`'${head.slice(0, 40)}' is not a chunk header`);
    this.size = parseInt(sizeText, 16);
    this.remaining = this.size;
    this.sent = extensions.find((e) => e.startsWith("chunk-signature="))?.slice("chunk-signature=".length);
    this.hash = this.chain ? createHash("sha256") : undefined;
    if (this.size > 0) {
      this.state = "data";
      return;
    }
    this.verify();
    this.state = this.withTrailer ? "trailers" : "done";
  }

  private verify(): void {
    if (!this.chain) return;
    if (!this.sent) throw s3Error("SignatureDoesNotMatch", "A chunk of a signed aws-chunked body has no chunk-signature.");
    const dataHash = this.hash ? this.hash.digest("hex") : EMPTY_SHA256;
    const toSign = ["AWS4-HMAC-SHA256-PAYLOAD", this.chain.amzDate, scopeString(this.chain.scope), this.previous, EMPTY_SHA256, dataHash].join("\n");
    if (!sameSignature(sign(this.chain.key, toSign), this.sent)) {
      throw s3Error("SignatureDoesNotMatch", "The chunk signature we calculated does not match the signature you provided.", { StringToSign: toSign, SignatureProvided: this.sent });
    }
    this.previous = this.sent;
  }
}

/** A whole aws-chunked body at once. */
export function decodeChunks(raw: Buffer, chain: ChunkChain | undefined, withTrailer: boolean): { body: Buffer; trailers: Map<string, string> } {
  const d = new ChunkDecoder(chain, withTrailer);
  const body = Buffer.concat(d.push(raw));
  return { body, trailers: d.end() };
}
