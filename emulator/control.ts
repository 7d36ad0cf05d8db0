// The test-only control API under /_emulator: faults, counters, time, state. No auth: the
// emulator listens on loopback only.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Emu } from "./emu";
import { PlatformError } from "./errors";
import { parse } from "./http";
import { IDENTITY_TABLES } from "./seed-tables";

const faultSchema = z.object({
  kind: z.enum(["status", "latency", "drop"]),
  method: z.string().optional(),
  path: z.string().optional(),
  pathRegex: z.string().optional(),
  status: z.number().int().min(400).max(599).optional(),
  retryAfter: z.enum(["seconds", "date"]).optional(),
  retryAfterSeconds: z.number().min(0).optional(),
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  rate: z.number().min(0).max(1).optional(),
  count: z.number().int().min(1).optional(),
});

const rateLimitSchema = z.object({ perMinute: z.number().positive(), burst: z.number().int().min(1).optional() });

const timeSchema = z.object({ advanceMs: z.number().int().optional(), now: z.string().optional(), reset: z.boolean().optional() });

/** Extra control routes that feature modules (public DNS, lifecycles) contribute. */
export type ControlExtension = (app: FastifyInstance, emu: Emu) => void;
const extensions: ControlExtension[] = [];
export function extendControl(ext: ControlExtension): void {
  extensions.push(ext);
}

export function controlRoutes(app: FastifyInstance, emu: Emu): void {
  const wrap = (fn: (body: unknown, query: Record<string, unknown>) => unknown) => async (req: any, reply: any) => {
    try {
      const out = await fn(req.body, req.query);
      return out === undefined ? reply.code(204).send() : reply.send(out);
    } catch (err) {
      if (err instanceof PlatformError) return reply.code(err.statusCode).send(err.body());
      throw err;
    }
  };

  app.get("/_emulator/health", wrap(() => ({ ok: true })));
  app.get("/_emulator/faults", wrap(() => ({ data: emu.faults.list() })));
  app.post("/_emulator/faults", wrap((body) => emu.faults.add(parse(faultSchema, body))));
  app.delete("/_emulator/faults", wrap(() => void emu.faults.clear()));

  app.get("/_emulator/rate-limit", wrap(() => emu.rateLimit.get() ?? {}));
  app.put("/_emulator/rate-limit", wrap((body) => {
    emu.rateLimit.set(parse(rateLimitSchema, body));
    return emu.rateLimit.get();
  }));
  app.delete("/_emulator/rate-limit", wrap(() => void emu.rateLimit.set(undefined)));

  app.get("/_emulator/counters", wrap(() => Object.fromEntries(emu.counters)));
  app.delete("/_emulator/counters", wrap(() => void emu.counters.clear()));

  app.post("/_emulator/time", wrap((body) => {
    const t = parse(timeSchema, body ?? {});
    if (t.reset) emu.clock.reset();
    if (t.now) emu.clock.set(Date.parse(t.now));
    if (t.advanceMs) emu.clock.advance(t.advanceMs);
    return { now: emu.now() };
  }));
  app.get("/_emulator/time", wrap(() => ({ now: emu.now() })));

  /** Row counts of everything a user can create; the seeded identity tables are left out. */
  app.get("/_emulator/state", wrap(() => {
    const counts = emu.store.counts();
    for (const t of [...IDENTITY_TABLES, "idempotency"]) delete counts[t];
    return { counts, total: Object.values(counts).reduce((a, b) => a + b, 0) };
  }));

  /** Forgets everything users created (and faults, counters, time); seeded keys stay valid. */
  app.post("/_emulator/reset", wrap(() => {
    const keep = Object.fromEntries(
      Object.entries(emu.store.toJSON()).filter(([name]) => IDENTITY_TABLES.includes(name)),
    );
    emu.store.load(keep);
    emu.faults.clear();
    emu.rateLimit.set(undefined);
    emu.counters.clear();
    emu.clock.reset();
    emu.emit("reset", undefined);
    emu.save();
  }));

  for (const ext of extensions) ext(app, emu);
}
