// One error hierarchy for everything the client raises. API errors are built in one place
// (`ApiError.from`), so a status always maps to the same class.
import { STATUS_CODES } from "node:http";

export class CloudPlatformError extends Error {
  override name = "CloudPlatformError";
}

/** The API key is missing or does not have the shape of a platform key. Never carries the key. */
export class InvalidApiKeyError extends CloudPlatformError {
  override name = "InvalidApiKeyError";
}

/** Provider or client configuration is missing or inconsistent. */
export class ConfigurationError extends CloudPlatformError {
  override name = "ConfigurationError";
}

/** No HTTP response: refused, reset, dropped or timed out, after any retries. */
export class ConnectionError extends CloudPlatformError {
  override name = "ConnectionError";
  constructor(
    readonly method: string,
    readonly path: string,
    readonly requestId: string,
    readonly code: string | undefined,
    detail: string,
    readonly attempts: number,
  ) {
    super(`${method} ${path} failed without a response after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${detail}${code ? ` (${code})` : ""} [request id ${requestId}]`);
  }
}

/** A 2xx response whose body does not have the documented shape. */
export class ResponseValidationError extends CloudPlatformError {
  override name = "ResponseValidationError";
}

export interface ApiErrorInit {
  status: number;
  body: unknown;
  requestId: string;
  method: string;
  path: string;
  retryAfterMs?: number;
}

export class ApiError extends CloudPlatformError {
  override name = "ApiError";
  readonly status: number;
  /** The status phrase, from the body's `error` or the HTTP standard. */
  readonly phrase: string;
  /** The body's `message`: a string or an array of strings (conventions §7.1). */
  readonly messages: string | string[];
  readonly body: unknown;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;

  constructor(init: ApiErrorInit) {
    const b = (init.body ?? {}) as { message?: unknown; error?: unknown };
    const messages = Array.isArray(b.message)
      ? b.message.map(String)
      : typeof b.message === "string"
        ? b.message
        : typeof init.body === "string" && init.body
          ? init.body.slice(0, 500)
          : "";
    const phrase = typeof b.error === "string" ? b.error : (STATUS_CODES[init.status] ?? "Error");
    const text = Array.isArray(messages) ? messages.join("; ") : messages;
    super(`${init.method} ${init.path}: ${init.status} ${phrase}${text ? `: ${text}` : ""} [request id ${init.requestId}]`);
    this.status = init.status;
    this.phrase = phrase;
    this.messages = messages;
    this.body = init.body;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
  }

  /** The messages as a list, whichever shape the body used. */
  get messageList(): string[] {
    return Array.isArray(this.messages) ? this.messages : this.messages ? [this.messages] : [];
  }

  static from(init: ApiErrorInit): ApiError {
    const s = init.status;
    if (s === 400) return new BadRequestError(init);
    if (s === 401) return new AuthenticationError(init);
    if (s === 403) return new PermissionDeniedError(init);
    if (s === 404) return new NotFoundError(init);
    if (s === 409) return new ConflictError(init);
    if (s === 413) return new PayloadTooLargeError(init);
    if (s === 422) return new UnprocessableEntityError(init);
    if (s === 429) return new RateLimitError(init);
    if (s >= 500) return new InternalServerError(init);
    return new ApiError(init);
  }
}

export class BadRequestError extends ApiError {
  override name = "BadRequestError";
}
/** Some routes answer 422 for an invalid body where others answer 400 (conventions §7.1). */
export class UnprocessableEntityError extends ApiError {
  override name = "UnprocessableEntityError";
}
export class AuthenticationError extends ApiError {
  override name = "AuthenticationError";
}
export class PermissionDeniedError extends ApiError {
  override name = "PermissionDeniedError";
}
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
export class ConflictError extends ApiError {
  override name = "ConflictError";
}
export class PayloadTooLargeError extends ApiError {
  override name = "PayloadTooLargeError";
}
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
  readonly retryAfterMs?: number;
  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}
export class InternalServerError extends ApiError {
  override name = "InternalServerError";
}

export const isNotFound = (err: unknown): err is NotFoundError => err instanceof NotFoundError;
export const isValidationError = (err: unknown): err is ApiError =>
  err instanceof BadRequestError || err instanceof UnprocessableEntityError;
