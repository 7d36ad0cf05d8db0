// The route table's vocabulary: a route is method + URL + scope rule + handler; handlers take a
// plain context and return a plain reply, so they know nothing of fastify.
import type { Principal, ScopeName } from "./auth";
import type { Emu } from "./emu";
import { badRequest, PlatformError } from "./errors";
import type { z } from "zod";

/** A request body's limit unless its route sets one (the email routes take larger messages). */
export const BODY_LIMIT = 10 * 1024 * 1024;

/**
 * The application/json body parser (fastify's content-type parser shape, without its types): an
 * empty body is no body (POST /verify and the like take none); one that is not JSON is a 400.
 */
export function parseJsonBody(_req: unknown, body: string | Buffer, done: (err: Error | null, value?: unknown) => void): void {
  const text = typeof body === "string" ? body : body.toString("utf8");
  if (text.trim() === "") return done(null, undefined);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return done(new PlatformError(400, "Body is not valid JSON"));
  }
  done(null, value);
}

export interface Ctx {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  principal: Principal;
  emu: Emu;
}

export interface Reply {
  status: number;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  url: string;
  scope: ScopeName;
  /** Accepts an Idempotency-Key header (the "IK" of the spec). */
  idempotent?: boolean;
  /** A larger request body than the default 10 MiB (the email routes check the message size themselves). */
  bodyLimit?: number;
  handler: (ctx: Ctx) => Reply | Promise<Reply>;
}

/** A route that takes no credential (signing in): its handler gets no principal. */
export interface PublicRouteDef {
  method: RouteDef["method"];
  url: string;
  public: true;
  handler: (ctx: Omit<Ctx, "principal">) => Reply | Promise<Reply>;
}
export type AnyRouteDef = RouteDef | PublicRouteDef;

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const accepted = (body: unknown): Reply => ({ status: 202, body });
export const noContent = (): Reply => ({ status: 204 });

/** Validates a body or query with zod; a failure is a 400 whose messages name each field. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where = "body"): z.infer<S> {
  const r = schema.safeParse(value ?? (where === "body" ? undefined : {}));
  if (r.success) return r.data;
  throw badRequest(
    r.error.issues.flatMap((i) => {
      const path = i.path.length ? i.path.join(".") : where;
      // A strict schema names each field it does not know, as a field of its own.
      if (i.code === "unrecognized_keys") {
        return i.keys.map((k) => `${i.path.length ? `${path}.` : ""}${k}: ${where === "query" ? "is not a query parameter of this route" : `is not a field of this ${where}`}`);
      }
      return [`${path}: ${i.message}`];
    }),
  );
}

const LIMIT_DEFAULT = 20;
const LIMIT_MAX = 100;

interface CursorState {
  o: number;
  l: number;
}

/** A cursor page `{data, nextCursor}`; the cursor is opaque base64url and carries the page size. */
export function page<T>(items: T[], query: Record<string, unknown>): { data: T[]; nextCursor: string | null } {
  let offset = 0;
  let limit = LIMIT_DEFAULT;
  const cursor = query.cursor;
  if (typeof cursor === "string" && cursor !== "") {
    let state: CursorState;
    try {
      state = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    } catch {
      throw badRequest("cursor: is not a cursor this API returned; pass nextCursor back unchanged");
    }
    // A forged page size of 0 would hand back the same cursor forever; one over the cap dodges the clamp.
    if (!Number.isInteger(state?.o) || !Number.isInteger(state?.l) || state.o < 0 || state.l < 1 || state.l > LIMIT_MAX) {
      throw badRequest("cursor: is not a cursor this API returned; pass nextCursor back unchanged");
    }
    offset = state.o;
    limit = state.l;
  } else if (query.limit !== undefined) {
    const n = Number(query.limit);
    if (!Number.isInteger(n) || n < 1) throw badRequest("limit: must be a positive integer");
    limit = Math.min(n, LIMIT_MAX);
  }
  const data = items.slice(offset, offset + limit);
  const next = offset + limit < items.length
    ? Buffer.from(JSON.stringify({ o: offset + limit, l: limit } satisfies CursorState)).toString("base64url")
    : null;
  return { data, nextCursor: next };
}

/** `search` matches names containing the value, case-insensitively. */
export function matchesSearch(query: Record<string, unknown>, ...names: (string | null | undefined)[]): boolean {
  const q = typeof query.search === "string" ? query.search.toLowerCase() : "";
  if (!q) return true;
  return names.some((n) => (n ?? "").toLowerCase().includes(q));
}
