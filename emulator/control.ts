// The test-only control API under /_emulator: faults, counters, time, state. guard.ts stands in
// front of it: known Hosts only, changes as JSON from no other site, and the token when the
// emulator has one (required beyond loopback). Every control route validates its body and query with zod,
// as the API routes do: a 400 names the field and the rule, and nothing is stored.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Emu } from "./emu";
import { badRequest, PlatformError } from "./errors";
import { FAULT_METHODS, regexProblem } from "./faults";
import { parse } from "./http";
import { resetCascade } from "./models/cascades";
import { IDENTITY_TABLES } from "./seed-tables";

/** A control route: its body and query schemas (none when absent) and a handler over the parsed input. */
export interface ControlRoute<B extends z.ZodType, Q extends z.ZodType> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  /** The body; without it the route takes none (an empty object is tolerated). */
  body?: B;
  /** The query parameters; without it the route takes none. */
  query?: Q;
  /** The success status when the handler returns a body (200 by default; 204 when it returns nothing). */
  status?: number;
  handler: (input: { body: z.infer<B>; query: z.infer<Q>; params: Record<string, string> }) => unknown;
}

const NO_BODY = z.strictObject({}).optional();
const NO_QUERY = z.strictObject({});

/** Registers a control route: input parsed before the handler runs, PlatformErrors as the standard error body. */
export function controlRoute<B extends z.ZodType = typeof NO_BODY, Q extends z.ZodType = typeof NO_QUERY>(
  app: FastifyInstance,
  def: ControlRoute<B, Q>,
): void {
  app.route({
    method: def.method,
    url: def.url,
    handler: async (req, reply) => {
      try {
        const body = parse(def.body ?? NO_BODY, req.body ?? undefined) as z.infer<B>;
        const query = parse(def.query ?? NO_QUERY, req.query, "query") as z.infer<Q>;
        const out = await def.handler({ body, query, params: req.params as Record<string, string> });
        return out === undefined ? reply.code(204).send() : reply.code(def.status ?? 200).send(out);
      } catch (err) {
        if (err instanceof PlatformError) return reply.code(err.statusCode).send(err.body());
        throw err;
      }
    },
  });
}

const faultSchema = z.strictObject({
  kind: z.enum(["status", "latency", "drop"], { error: "must be status, latency or drop" }),
  method: z.string().transform((m) => m.toUpperCase())
    .refine((m) => (FAULT_METHODS as readonly string[]).includes(m), `must be an HTTP method: ${FAULT_METHODS.join(", ")}`).optional(),
  path: z.string().startsWith("/", "must be a path starting with /, such as /v1/me").optional(),
  pathRegex: z.string().min(1, "must not be empty").max(1_000, "must be at most 1000 characters").superRefine((re, ctx) => {
    const problem = regexProblem(re);
    if (problem) ctx.addIssue({ code: "custom", message: `must be a valid regular expression: ${problem}` });
  }).optional(),
  status: z.number().int("must be an integer").min(400, "must be between 400 and 599").max(599, "must be between 400 and 599").optional(),
  message: z.string().min(1, "must not be empty").max(10_000, "must be at most 10000 characters").optional(),
  retryAfter: z.enum(["seconds", "date"], { error: "must be seconds or date" }).optional(),
  retryAfterSeconds: z.number().min(0, "must be between 0 and 86400").max(86_400, "must be between 0 and 86400").optional(),
  latencyMs: z.number().int("must be an integer").min(0, "must be between 0 and 60000").max(60_000, "must be between 0 and 60000").optional(),
  rate: z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").optional(),
  count: z.number().int("must be an integer").min(1, "must be at least 1").optional(),
}).superRefine((f, ctx) => {
  const only = (field: keyof typeof f, kind: string) => {
    if (f[field] !== undefined && f.kind !== kind) ctx.addIssue({ code: "custom", path: [field], message: `applies to ${kind} faults only` });
  };
  only("status", "status");
  only("retryAfter", "status");
  only("message", "status");
  only("retryAfterSeconds", "status");
  only("latencyMs", "latency");
  if (f.kind === "latency" && f.latencyMs === undefined) ctx.addIssue({ code: "custom", path: ["latencyMs"], message: "is required for a latency fault" });
});

const rateLimitSchema = z.strictObject({
  perMinute: z.number().positive("must be more than 0").max(1_000_000, "must be at most 1000000"),
  burst: z.number().int("must be an integer").min(1, "must be at least 1").max(1_000_000, "must be at most 1000000").optional(),
});

/** The clock stays within what an ISO 8601 date-time with a four-digit year can say. */
const CLOCK_MIN = Date.parse("1970-01-01T00:00:00Z");
const CLOCK_MAX = Date.parse("9999-12-31T23:59:59.999Z");
const inClock = (ms: number) => ms >= CLOCK_MIN && ms <= CLOCK_MAX;
const CLOCK_RANGE = "between 1970-01-01 and 9999-12-31";
const ISO_DATE_TIME = z.iso.datetime({ offset: true });

const timeSchema = z.strictObject({
  advanceMs: z.number().int("must be an integer number of milliseconds").optional(),
  now: z.string({ error: "must be an ISO 8601 date-time with a zone, such as 2030-01-02T03:04:05Z" }).superRefine((s, ctx) => {
    if (!ISO_DATE_TIME.safeParse(s).success) ctx.addIssue({ code: "custom", message: "must be an ISO 8601 date-time with a zone, such as 2030-01-02T03:04:05Z" });
    else if (!inClock(Date.parse(s))) ctx.addIssue({ code: "custom", message: `must be ${CLOCK_RANGE}` });
  }).optional(),
  reset: z.boolean().optional(),
}).refine((t) => t.advanceMs !== undefined || t.now !== undefined || t.reset !== undefined, "give advanceMs, now or reset (GET /_emulator/time reads the clock)");

export function controlRoutes(app: FastifyInstance, emu: Emu): void {
  controlRoute(app, { method: "GET", url: "/_emulator/health", handler: () => ({ ok: true }) });
  controlRoute(app, { method: "GET", url: "/_emulator/faults", handler: () => ({ data: emu.faults.list() }) });
  controlRoute(app, { method: "POST", url: "/_emulator/faults", body: faultSchema, handler: ({ body }) => emu.faults.add(body) });
  controlRoute(app, { method: "DELETE", url: "/_emulator/faults", handler: () => void emu.faults.clear() });

  controlRoute(app, { method: "GET", url: "/_emulator/rate-limit", handler: () => emu.rateLimit.get() ?? {} });
  controlRoute(app, {
    method: "PUT", url: "/_emulator/rate-limit", body: rateLimitSchema,
    handler: ({ body }) => {
      emu.rateLimit.set(body);
      return emu.rateLimit.get();
    },
  });
  controlRoute(app, { method: "DELETE", url: "/_emulator/rate-limit", handler: () => void emu.rateLimit.set(undefined) });

  controlRoute(app, { method: "GET", url: "/_emulator/counters", handler: () => Object.fromEntries(emu.counters) });
  controlRoute(app, { method: "DELETE", url: "/_emulator/counters", handler: () => void emu.counters.clear() });

  controlRoute(app, {
    method: "POST", url: "/_emulator/time", body: timeSchema,
    handler: ({ body: t }) => {
      // Where the clock would land, checked before anything moves.
      let at = t.reset ? Date.now() : emu.clock.now();
      if (t.now !== undefined) at = Date.parse(t.now);
      if (t.advanceMs !== undefined) at += t.advanceMs;
      if (!inClock(at)) throw badRequest(`advanceMs: would move the clock outside the range it keeps, ${CLOCK_RANGE}`);
      if (t.reset) emu.clock.reset();
      if (t.now !== undefined) emu.clock.set(Date.parse(t.now));
      if (t.advanceMs !== undefined) emu.clock.advance(t.advanceMs);
      return { now: emu.now() };
    },
  });
  controlRoute(app, { method: "GET", url: "/_emulator/time", handler: () => ({ now: emu.now() }) });

  /** Row counts of everything a user can create; the seeded identity tables are left out. */
  controlRoute(app, {
    method: "GET", url: "/_emulator/state",
    handler: () => {
      const counts = emu.store.counts();
      for (const t of [...IDENTITY_TABLES, "idempotency"]) delete counts[t];
      return { counts, total: Object.values(counts).reduce((a, b) => a + b, 0) };
    },
  });

  /** Forgets everything users created (and faults, counters, time); seeded keys stay valid. */
  controlRoute(app, {
    method: "POST", url: "/_emulator/reset",
    handler: () => {
      emu.store.clearExcept(IDENTITY_TABLES);
      emu.faults.clear();
      emu.rateLimit.set(undefined);
      emu.counters.clear();
      emu.clock.reset();
      resetCascade(emu);
      emu.emit("reset", undefined);
      emu.log({ kind: "state", msg: "reset: everything users created is forgotten" });
    },
  });
}
