// GET /_emulator/ready: whether every part of the emulator serves (HTTP, DNS when asked for, the
// database engine and each POSTGRES service's database), 200 when all do, 503 naming the parts
// that do not. Parts register a probe; HTTP is the route answering (routes/control/ready.ts), until
// shutdown begins.
import type { Emu } from "./emu";

export interface Part {
  name: string;
  ready: boolean;
  state: string;
  [detail: string]: unknown;
}

type Probe = () => Part[];
const probes = new WeakMap<Emu, Map<string, Probe>>();

/** The probes of an emulator; the first call starts watching for its shutdown. */
export function probesOf(emu: Emu): Map<string, Probe> {
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
  probesOf(emu).set(key, probe);
}

export function readiness(emu: Emu): { ready: boolean; parts: Part[] } {
  const parts = [...probesOf(emu).values()].flatMap((p) => p());
  return { ready: parts.every((p) => p.ready), parts };
}
