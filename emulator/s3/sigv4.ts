// AWS Signature Version 4, as S3 checks it: in the Authorization header or in a presigned query
// string, over the canonical request, with the access key's secret. Times are the emulator's.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { s3Error } from "./errors";

export const ALGORITHM = "AWS4-HMAC-SHA256";
export const EMPTY_SHA256 = createHash("sha256").update("").digest("hex");
/** S3 refuses a request whose time is further than this from its own clock. */
export const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_PRESIGNED_SECONDS = 7 * 24 * 3600;

/** What a signature covers, as the request arrived. */
export interface SignedRequest {
  method: string;
  /** The decoded path; it is encoded again for the canonical request. */
  path: string;
  /** Decoded query parameters, in order. */
  query: [string, string][];
  /** Header values by lowercased name, every occurrence kept. */
  headers: Map<string, string[]>;
}

/** A signature's scope: whose key, which day, region and service. */
export interface Scope {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
}

/** How a request claims to be signed, parsed but not yet checked. */
export interface Claim {
  kind: "header" | "query";
  scope: Scope;
  /** `YYYYMMDDTHHMMSSZ` */
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  /** The payload hash the signature covers: a SHA-256 hex, UNSIGNED-PAYLOAD or a STREAMING-* mode. */
  payload: string;
  /** Presigned URLs only. */
  expiresSeconds?: number;
}

export const sha256Hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data).digest();

export function signingKey(secret: string, scope: Scope): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, scope.date), scope.region), scope.service), "aws4_request");
}

export const scopeString = (s: Scope) => `${s.date}/${s.region}/${s.service}/aws4_request`;

/** RFC 3986 encoding, as SigV4 wants it: everything but A-Z a-z 0-9 - . _ ~ is percent-encoded. */
export const uriEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function canonicalRequest(req: SignedRequest, claim: Pick<Claim, "signedHeaders" | "payload">, dropSignature: boolean): string {
  const path = req.path.split("/").map(uriEncode).join("/");
  const query = req.query
    .filter(([k]) => !(dropSignature && k === "X-Amz-Signature"))
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const headers = claim.signedHeaders
    .map((h) => `${h}:${(req.headers.get(h) ?? []).map((v) => v.trim().replace(/\s+/g, " ")).join(",")}\n`)
    .join("");
  return [req.method, path, query, headers, claim.signedHeaders.join(";"), claim.payload].join("\n");
}

export const stringToSign = (amzDate: string, scope: Scope, canonical: string) =>
  [ALGORITHM, amzDate, scopeString(scope), sha256Hex(canonical)].join("\n");

export const sign = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest("hex");

const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

/** Compares in constant time; anything but a lower-case hex signature simply does not match. */
export function sameSignature(a: string, b: string): boolean {
  return HEX_SIGNATURE.test(a) && HEX_SIGNATURE.test(b) && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** Epoch milliseconds of a `YYYYMMDDTHHMMSSZ` time, or NaN. */
export function amzDateMs(s: string): number {
  const m = AMZ_DATE.exec(s);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : NaN;
}
export const toAmzDate = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");

function parseCredential(value: string, malformed: (m: string) => Error): Scope {
  const parts = value.split("/");
  if (parts.length !== 5 || parts.some((p) => p === "")) {
    throw malformed(`the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request", got '${value}'`);
  }
  const [accessKeyId, date, region, service, terminal] = parts;
  if (terminal !== "aws4_request") throw malformed(`incorrect terminal '${terminal}'. This endpoint uses 'aws4_request'.`);
  if (service !== "s3") throw malformed(`incorrect service '${service}'. This endpoint belongs to 's3'.`);
  if (!/^\d{8}$/.test(date)) throw malformed(`incorrect date format '${date}'. This date in the credential must be in the format "yyyyMMdd".`);
  return { accessKeyId, date, region, service };
}

/** The signature a request claims: from its Authorization header, its query, or none (anonymous). */
export function readClaim(req: SignedRequest): Claim | undefined {
  const auth = req.headers.get("authorization")?.[0];
  const q = new Map(req.query);
  const inQuery = q.has("X-Amz-Algorithm") || q.has("X-Amz-Credential") || q.has("X-Amz-Signature");
  if (auth !== undefined && inQuery) {
    throw s3Error("InvalidArgument", "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified");
  }
  if (auth !== undefined) return headerClaim(req, auth);
  if (inQuery) return queryClaim(req, q);
  return undefined;
}

function headerClaim(req: SignedRequest, auth: string): Claim {
  const malformed = (m: string) => s3Error("AuthorizationHeaderMalformed", `The authorization header is malformed; ${m}`);
  const space = auth.indexOf(" ");
  const algorithm = space < 0 ? auth : auth.slice(0, space);
  if (algorithm !== ALGORITHM) {
    throw s3Error("InvalidRequest", `The authorization mechanism you have provided is not supported (${algorithm}). Please use ${ALGORITHM}.`);
  }
  const fields = new Map<string, string>();
  for (const part of auth.slice(space + 1).split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get("Credential");
  const signed = fields.get("SignedHeaders");
  const signature = fields.get("Signature");
  if (!credential || !signed || !signature) {
    throw malformed("it must name a Credential, SignedHeaders and a Signature");
  }
  const scope = parseCredential(credential, malformed);
  const amzDate = req.headers.get("x-amz-date")?.[0] ?? dateHeader(req);
  if (!amzDate) throw s3Error("AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
  if (amzDate.slice(0, 8) !== scope.date) {
    throw malformed(`Invalid credential date '${scope.date}'. Date is not the same as X-Amz-Date.`);
  }
  const payload = req.headers.get("x-amz-content-sha256")?.[0];
  if (payload === undefined) throw s3Error("InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
  return { kind: "header", scope, amzDate, signedHeaders: signed.split(";"), signature, payload };
}

/** The Date header as `YYYYMMDDTHHMMSSZ`, when the request has no x-amz-date. */
function dateHeader(req: SignedRequest): string | undefined {
  const date = req.headers.get("date")?.[0];
  const ms = date ? Date.parse(date) : NaN;
  return Number.isNaN(ms) ? undefined : toAmzDate(ms);
}

function queryClaim(req: SignedRequest, q: Map<string, string>): Claim {
  const bad = (m: string) => s3Error("AuthorizationQueryParametersError", m);
  const [algorithm, credential, amzDate, expires, signed, signature] =
    ["X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature"].map((k) => q.get(k));
  if (!algorithm || !credential || !amzDate || !expires || !signed || !signature) {
    throw bad("Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.");
  }
  if (algorithm !== ALGORITHM) throw bad(`X-Amz-Algorithm only supports "${ALGORITHM}"`);
  const scope = parseCredential(credential, (m) => bad(`Error parsing the X-Amz-Credential parameter; ${m}`));
  if (Number.isNaN(amzDateMs(amzDate))) throw bad("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
  if (amzDate.slice(0, 8) !== scope.date) throw bad(`Invalid credential date '${scope.date}'. Date is not the same as X-Amz-Date.`);
  const seconds = /^\d+$/.test(expires) ? Number(expires) : NaN;
  if (!(seconds >= 1)) throw bad("X-Amz-Expires should be a number of seconds, at least 1");
  if (seconds > MAX_PRESIGNED_SECONDS) throw bad(`X-Amz-Expires must be less than a week (in seconds) that is ${MAX_PRESIGNED_SECONDS}`);
  const payload = q.get("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD";
  return { kind: "query", scope, amzDate, signedHeaders: signed.split(";"), signature, payload, expiresSeconds: seconds };
}

/**
 * Checks a claim's time, region and signature against the key's secret; returns the signing key,
 * which aws-chunked bodies go on signing with.
 */
export function verifyClaim(req: SignedRequest, claim: Claim, secret: string, region: string, nowMs: number): Buffer {
  const at = amzDateMs(claim.amzDate);
  if (Number.isNaN(at)) {
    throw s3Error("AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
  }
  if (claim.kind === "header" && Math.abs(nowMs - at) > MAX_SKEW_MS) {
    throw s3Error("RequestTimeTooSkewed", "The difference between the request time and the current time is too large.", {
      RequestTime: claim.amzDate, ServerTime: new Date(nowMs).toISOString(), MaxAllowedSkewMilliseconds: String(MAX_SKEW_MS),
    });
  }
  if (claim.kind === "query") {
    if (at - nowMs > MAX_SKEW_MS) throw s3Error("AccessDenied", "Request is not valid yet");
    if (nowMs > at + claim.expiresSeconds! * 1000) {
      throw s3Error("AccessDenied", "Request has expired", {
        "X-Amz-Expires": String(claim.expiresSeconds), Expires: new Date(at + claim.expiresSeconds! * 1000).toISOString(), ServerTime: new Date(nowMs).toISOString(),
      });
    }
  }
  if (claim.scope.region !== region) {
    const m = `the region '${claim.scope.region}' is wrong; expecting '${region}'`;
    throw claim.kind === "header"
      ? s3Error("AuthorizationHeaderMalformed", `The authorization header is malformed; ${m}`, { Region: region })
      : s3Error("AuthorizationQueryParametersError", `Error parsing the X-Amz-Credential parameter; ${m}`, { Region: region });
  }
  if (!claim.signedHeaders.includes("host")) {
    throw s3Error(claim.kind === "header" ? "AuthorizationHeaderMalformed" : "AuthorizationQueryParametersError", "SignedHeaders must include 'host'");
  }
  const canonical = canonicalRequest(req, claim, claim.kind === "query");
  const toSign = stringToSign(claim.amzDate, claim.scope, canonical);
  const key = signingKey(secret, claim.scope);
  if (!sameSignature(sign(key, toSign), claim.signature)) {
    throw s3Error("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.", {
      AWSAccessKeyId: claim.scope.accessKeyId, StringToSign: toSign, SignatureProvided: claim.signature, CanonicalRequest: canonical,
    });
  }
  return key;
}
