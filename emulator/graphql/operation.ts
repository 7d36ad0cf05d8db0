// What every GraphQL operation shares with the REST routes: bearer authentication and scopes
// (conventions §5.3: mail operations need EMAIL_SEND, the others PLATFORM_API, WRITE for
// mutations), 300 requests a minute per key and operation (§8), and the error shape of §7.2.
import { GraphQLError, type GraphQLResolveInfo } from "graphql";
import { authenticate, type Principal, type ScopeRule } from "../auth";
import type { Emu } from "../emu";
import { PlatformError, tooManyRequests } from "../errors";
import { errorExtensions } from "./codes";

export interface GqlContext {
  emu: Emu;
  headers: Record<string, string | string[] | undefined>;
  /** Operations already counted against the rate in this request, and whether they were over it. */
  counted: Map<string, PlatformError | null>;
}

export interface OperationCtx {
  emu: Emu;
  principal: Principal;
}

export type Resolver = (root: unknown, args: any, ctx: GqlContext, info: GraphQLResolveInfo) => Promise<unknown>;

/** One area of the schema: its types, its Query and Mutation fields (SDL), and their resolvers. */
export interface GraphQLArea {
  types: string;
  query?: string;
  mutation?: string;
  resolvers: { Query?: Record<string, Resolver>; Mutation?: Record<string, Resolver> };
}

export const PER_MINUTE = 300;
const calls = new WeakMap<Emu, Map<string, number[]>>();

/** A PlatformError as a GraphQL error with its code; a 429 also says when to retry. */
export function toGraphQLError(err: PlatformError): GraphQLError {
  return new GraphQLError(err.message, { extensions: errorExtensions(err) });
}

/** Wraps an operation: authenticate with `rule`, refuse mail keys, count the rate, map errors. */
export function operation(rule: ScopeRule, fn: (args: any, ctx: OperationCtx) => unknown): Resolver {
  return async (_root, args, ctx, info) => {
    try {
      const principal = authenticate(ctx.emu.store, ctx.headers, rule, ctx.emu.now());
      if (principal.key.kind === "mail_live" || principal.key.kind === "mail_test") {
        throw new PlatformError(403, "Mail keys reach the email REST API only; GraphQL takes a workspace key or a signed-in session");
      }
      throttle(ctx, principal, info.fieldName);
      return await fn(args, { emu: ctx.emu, principal });
    } catch (err) {
      if (err instanceof PlatformError) throw toGraphQLError(err);
      throw err;
    }
  };
}

function throttle(ctx: GqlContext, who: Principal, op: string): void {
  const key = `${who.key.id} ${op}`;
  const verdict = ctx.counted.get(key);
  if (verdict !== undefined) {
    if (verdict) throw verdict;
    return;
  }
  ctx.counted.set(key, null);
  const byKey = calls.get(ctx.emu) ?? new Map<string, number[]>();
  calls.set(ctx.emu, byKey);
  const now = ctx.emu.clock.now();
  const recent = (byKey.get(key) ?? []).filter((t) => t > now - 60_000);
  if (recent.length >= PER_MINUTE) {
    byKey.set(key, recent);
    const over = tooManyRequests(String(Math.max(1, Math.ceil((recent[0] + 60_000 - now) / 1000))));
    ctx.counted.set(key, over);
    throw over;
  }
  byKey.set(key, [...recent, now]);
}
