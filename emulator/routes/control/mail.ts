// Control routes of mail (tests only): the outbox of every message accepted, and suppressions of
// any reason (complaints cannot be made or deleted through the API).
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { controlRoute } from "../../control";
import type { Emu } from "../../emu";
import { clearOutbox, outbox, outboxQuery } from "../../models/email-outbox";
import { addSuppression, clearSuppressions, suppressionView } from "../../models/mail";
import { seededWorkspace } from "../../models/workspaces";

const controlSuppression = z.strictObject({
  address: z.email({ error: "must be an email address" }),
  reason: z.enum(["manual", "unsubscribe", "bounce", "complaint"], { error: "must be manual, unsubscribe, bounce or complaint" }).default("complaint"),
  workspaceId: z.string({ error: "must be a workspace id" }).optional(),
});

export function mailControlRoutes(app: FastifyInstance, emu: Emu): void {
  controlRoute(app, { method: "GET", url: "/_emulator/mail/outbox", query: outboxQuery, handler: ({ query }) => outbox(emu, query) });
  controlRoute(app, { method: "DELETE", url: "/_emulator/mail/outbox", handler: () => clearOutbox(emu) });
  controlRoute(app, {
    method: "POST", url: "/_emulator/mail/suppressions", body: controlSuppression, status: 201,
    handler: ({ body }) => suppressionView(addSuppression(emu, seededWorkspace(emu, body.workspaceId), body.address, body.reason)),
  });
  controlRoute(app, { method: "DELETE", url: "/_emulator/mail/suppressions", handler: () => clearSuppressions(emu) });
}
