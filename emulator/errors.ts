// Domain errors of the platform. Handlers throw these; app.ts maps them to the spec's error body
// `{statusCode, message, error}` (conventions §7.1, used by every REST route).
import { STATUS_CODES } from "node:http";

export class PlatformError extends Error {
  constructor(
    readonly statusCode: number,
    readonly messages: string | string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(Array.isArray(messages) ? messages.join("; ") : messages);
  }
  get phrase(): string {
    return STATUS_CODES[this.statusCode] ?? "Error";
  }
  body() {
    return { statusCode: this.statusCode, message: this.messages, error: this.phrase };
  }
}

export const badRequest = (m: string | string[]) => new PlatformError(400, m);
export const unauthorized = (m: string) => new PlatformError(401, m);
export const forbidden = (m: string) => new PlatformError(403, m);
export const notFound = (what: string, id: string) => new PlatformError(404, `${what} ${id} not found`);
export const conflict = (m: string) => new PlatformError(409, m);
export const tooLarge = (m: string) => new PlatformError(413, m);
export const tooManyRequests = (retryAfter: string) =>
  new PlatformError(429, "Rate limit exceeded; retry after the time in the Retry-After header", {
    "retry-after": retryAfter,
  });

/** An error the spec names a code for (the backup and restore errorCode list): the body carries it. */
export class CodedError extends PlatformError {
  constructor(statusCode: number, readonly errorCode: string, message: string) {
    super(statusCode, `${errorCode}: ${message}`);
  }
  override body() {
    return { ...super.body(), errorCode: this.errorCode };
  }
}
