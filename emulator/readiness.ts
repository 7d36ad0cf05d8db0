// GET /_emulator/ready: whether every part of the emulator serves (HTTP, DNS when asked for, the
// database engine and each POSTGRES service's database), 200 when all do, 503 naming the parts
// that do not. Parts register a probe; HTTP is this route answering, until shutdown begins.
import { z } from "zod";
import { extendControl } from "./control";
import type { Emu } from "./emu";
import { PlatformError } from "./errors";
import { parse } from "./http";

export interface Part {
  name: string;
  ready: boolean;
  state: string;
  [detail: string]: unknown;
}

type Probe = () => Part[];
const probes = new WeakMap<Emu, Map<string, Probe>>();

function of(emu: Emu): Map<string, Probe> {
  let m = probes.get(emu);
  if (!m) {
    m = new Map();
    probes.set(emu, m);
    let closing = false;
    emu.on("close", () => { closing = true; });
    m.set("http", () => [{ name: "http", ready: !closing, state: closing ? "closing" : "serving", ...(emu.settings.baseUrl ? { baseUrl: emu.settings.baseUrl } : {}) }]);
  }
  return m;
}

/** Adds (or replaces) the probe of a part, under `key`. */
export function addReadiness(emu: Emu, key: string, probe: Probe): void {
  of(emu).set(key, probe);
}

export function readiness(emu: Emu): { ready: boolean; parts: Part[] } {
  const parts = [...of(emu).values()].flatMap((p) => p());
  return { ready: parts.every((p) => p.ready), parts };
}

extendControl((app, emu) => {
  of(emu);
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
});
