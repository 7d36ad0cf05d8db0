export * from "./errors";
export * from "./client";
export { checkKeyShape, isLoopbackHost, redactKeys, redactUrlCredentials, KEY_KINDS } from "./keys";
export { DEFAULT_RETRY, type RetryPolicy, parseRetryAfter, backoffMs, jitteredDelay } from "./retry";
export { IDENTITY_INPUT, inOperation, currentOperation, deriveIdempotencyKey, canonicalJson, isReplay, type OperationScope } from "./idempotency";
