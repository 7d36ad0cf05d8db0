// The §7.2 code of each platform error status; no graphql import, so a refusal made before GraphQL
// runs (the rate limit) costs nothing to load.
import type { PlatformError } from "../errors";

const CODES: Record<number, string> = {
  400: "BAD_USER_INPUT", 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND", 409: "CONFLICT", 413: "BAD_USER_INPUT", 422: "BAD_USER_INPUT", 429: "THROTTLED",
};

/** A PlatformError's GraphQL extensions: its code, and for a 429 when to retry. */
export function errorExtensions(err: PlatformError): { code: string; retryAfterSeconds?: number } {
  const retry = err.headers["retry-after"];
  return { code: CODES[err.statusCode] ?? "INTERNAL_SERVER_ERROR", ...(retry ? { retryAfterSeconds: Number(retry) } : {}) };
}
