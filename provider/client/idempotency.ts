// Deterministic Idempotency-Keys. A create's key is a hash of the resource's identity (its URN, or
// stack, project, type and name) and of its request, so the create retried by the next `up` or
// after a crash sends the same key and the platform answers with the object it already made.
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";

/** The hidden input that carries a dynamic resource's identity to its provider. */
export const IDENTITY_INPUT = "__identity";

/** What the client knows about the operation it serves. */
export interface OperationScope {
  /** The resource's stable identity; without one, keys are random (safe within one call only). */
  identity?: string;
  /** Set by the first `own` create that answers: from then on the object exists. */
  created?: { id: string; body: unknown };
}

const scopes = new AsyncLocalStorage<OperationScope>();

/** Runs `fn` as one operation of the resource `scope.identity`; its client calls derive their keys from it. */
export function inOperation<T>(scope: OperationScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

export function currentOperation(): OperationScope | undefined {
  return scopes.getStore();
}

/** JSON with object keys sorted at every level, so equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/**
 * The key for one request of one resource: a SHA-256 over identity, method, path and canonical
 * body (secrets included), so the key reveals nothing of them. `generation` moves to a fresh key
 * when the first response is a replay of an object that no longer exists.
 */
export function deriveIdempotencyKey(identity: string, method: string, path: string, body: unknown, generation = 0): string {
  const hash = createHash("sha256")
    .update(["cloudplatform-idempotency-v1", identity, method.toUpperCase(), path, canonicalJson(body), String(generation)].join("\n"))
    .digest("base64url");
  return `ik1_${hash}`;
}

/** Clock skew allowed before an answer's createdAt marks it as made by an earlier request. */
const SKEW_MS = 60_000;

/**
 * A replayed first response: the platform's header, or (for a POST, whose answer is a new object)
 * an object made well before this request. Costs no extra call.
 */
export function isReplay(method: string, headers: Record<string, string | string[] | undefined>, data: unknown, sentAt: number): boolean {
  const h = headers["idempotent-replayed"];
  if ((Array.isArray(h) ? h[0] : h)?.toLowerCase() === "true") return true;
  if (method.toUpperCase() !== "POST") return false;
  const createdAt = (data as { createdAt?: unknown } | undefined)?.createdAt;
  if (typeof createdAt !== "string") return false;
  const t = Date.parse(createdAt);
  return Number.isFinite(t) && t < sentAt - SKEW_MS;
}
