// GET /_emulator/ready (readiness.ts): 200 when every part serves, 503 naming those that do not.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Emu } from "../../emu";
import { PlatformError } from "../../errors";
import { parse } from "../../http";
import { probesOf, readiness } from "../../readiness";

export function readyRoute(app: FastifyInstance, emu: Emu): void {
  probesOf(emu);
  // Not a controlRoute: its status (200 or 503) is the answer. It takes no input, and says so as they do.
  app.get("/_emulator/ready", async (req, reply) => {
    try {
      parse(z.strictObject({}), req.query, "query");
    } catch (e) {
      if (e instanceof PlatformError) return reply.code(e.statusCode).send(e.body());
      throw e;
    }
    const r = readiness(emu);
    return reply.code(r.ready ? 200 : 503).send(r);
  });
}
