// Transactional email (conventions §4.3-4.7): send, batch, read, list and limits. Sending needs
// WRITE + EMAIL_SEND (a platform token is refused); reading needs READ + EMAIL_SEND.
import { accepted, ok, type RouteDef } from "../http";
import { idempotencyKey } from "../idempotency";
import { limitsView, takeSendSlot } from "../models/email-limits";
import { getEmail, listEmails, recordView, sendBatch, sendOnce, sentSince } from "../models/emails";
import { shortRouteWorkspace } from "../models/mail";
import "../models/email-outbox";

const MiB = 1024 * 1024;

export const emailRoutes: RouteDef[] = [
  {
    // Base64 makes a 10 MiB message about 13.4 MiB of JSON: the model answers 413 on the message size.
    method: "POST", url: "/v1/emails", scope: "Se", bodyLimit: 16 * MiB,
    handler: async ({ principal, query, body, headers, emu }) => {
      const ws = shortRouteWorkspace(principal, query);
      takeSendSlot(emu, principal.key.id);
      return sendOnce(emu, principal, ws, body, idempotencyKey(headers));
    },
  },
  {
    method: "POST", url: "/v1/emails/batch", scope: "Se", bodyLimit: 64 * MiB,
    handler: async ({ principal, query, body, emu }) => {
      const ws = shortRouteWorkspace(principal, query);
      takeSendSlot(emu, principal.key.id);
      return accepted(await sendBatch(emu, principal, ws, body));
    },
  },
  {
    method: "GET", url: "/v1/emails", scope: "Re",
    handler: ({ principal, query, emu }) => ok(listEmails(emu, shortRouteWorkspace(principal, query), query)),
  },
  {
    method: "GET", url: "/v1/emails/:id", scope: "Re",
    handler: ({ principal, params, emu }) => ok(recordView(emu, getEmail(emu, principal, params.id))),
  },
  {
    method: "GET", url: "/v1/limits", scope: "Re",
    handler: ({ principal, query, emu }) => ok(limitsView(emu, principal, shortRouteWorkspace(principal, query), sentSince(emu))),
  },
];
