// Control routes of the simulated public DNS (tests only): delegations, the external records a
// customer's other DNS host would serve, resolving, and the propagation delay.
import type { FastifyInstance } from "fastify";
import { controlRoute } from "../../control";
import type { Emu } from "../../emu";
import {
  addDelegation, addExternalRecord, delegationBody, delegations, deleteExternalRecord, deleteExternalRecords, externalBody, externalPatch,
  externalQuery, externalRecords, patchExternalRecord, propagationBody, removeDelegation, resolveQuery, resolveView, setPropagation,
} from "../../models/public-dns";

export function dnsControlRoutes(app: FastifyInstance, emu: Emu): void {
  controlRoute(app, { method: "GET", url: "/_emulator/dns/delegations", handler: () => delegations(emu) });
  controlRoute(app, { method: "POST", url: "/_emulator/dns/delegations", body: delegationBody, handler: ({ body }) => addDelegation(emu, body.domain) });
  controlRoute(app, { method: "DELETE", url: "/_emulator/dns/delegations/:domain", handler: ({ params }) => removeDelegation(emu, params.domain) });

  controlRoute(app, { method: "GET", url: "/_emulator/dns/records", handler: () => ({ data: externalRecords(emu) }) });
  controlRoute(app, { method: "POST", url: "/_emulator/dns/records", body: externalBody, handler: ({ body }) => addExternalRecord(emu, body) });
  controlRoute(app, { method: "PATCH", url: "/_emulator/dns/records/:id", body: externalPatch, handler: ({ body, params }) => patchExternalRecord(emu, params.id, body) });
  controlRoute(app, { method: "DELETE", url: "/_emulator/dns/records/:id", handler: ({ params }) => deleteExternalRecord(emu, params.id) });
  controlRoute(app, { method: "DELETE", url: "/_emulator/dns/records", query: externalQuery, handler: ({ query }) => deleteExternalRecords(emu, query) });

  controlRoute(app, { method: "GET", url: "/_emulator/dns/resolve", query: resolveQuery, handler: ({ query }) => resolveView(emu, query) });

  controlRoute(app, { method: "GET", url: "/_emulator/dns/propagation", handler: () => ({ dnsPropagationMs: emu.settings.dnsPropagationMs }) });
  controlRoute(app, { method: "PUT", url: "/_emulator/dns/propagation", body: propagationBody, handler: ({ body }) => setPropagation(emu, body.dnsPropagationMs) });
}
