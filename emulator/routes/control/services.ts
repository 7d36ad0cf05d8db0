// Control routes of services (tests only): how many times each service was deployed, without an API key.
import type { FastifyInstance } from "fastify";
import { controlRoute } from "../../control";
import type { Emu } from "../../emu";
import { deploysOf, services } from "../../models/lifecycle";

export function serviceControlRoutes(app: FastifyInstance, emu: Emu): void {
  controlRoute(app, {
    method: "GET", url: "/_emulator/services",
    handler: () => ({ data: services(emu).all().map((s) => ({ id: s.id, name: s.name, type: s.type, deploys: deploysOf(emu, s.id).length })) }),
  });
}
