// The control routes of feature models (tests only, under /_emulator); the core ones (faults,
// time, state, reset) are in control.ts.
import type { FastifyInstance } from "fastify";
import type { Emu } from "../../emu";
import { dnsControlRoutes } from "./dns";
import { mailControlRoutes } from "./mail";
import { previewControlRoutes } from "./previews";
import { readyRoute } from "./ready";
import { serviceControlRoutes } from "./services";
import { storageControlRoutes } from "./storage";

export function featureControlRoutes(app: FastifyInstance, emu: Emu): void {
  readyRoute(app, emu);
  dnsControlRoutes(app, emu);
  mailControlRoutes(app, emu);
  previewControlRoutes(app, emu);
  serviceControlRoutes(app, emu);
  storageControlRoutes(app, emu);
}
