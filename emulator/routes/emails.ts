// Transactional email (conventions §4.3-4.7): send, batch, read, list and limits. Sending needs
// WRITE + EMAIL_SEND (a platform token is refused); reading needs READ + EMAIL_SEND.
import type { Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { PlatformError } from "../errors";
import { accepted, ok, type Reply, type RouteDef } from "../http";
import { idempotencyKey, replyOnce } from "../idempotency";
import { bodyIdempotencyKey, parseMessage } from "../models/email-message";
import { limitsView, takeSendSlot } from "../models/email-limits";
import { batchMessages, getEmail, listEmails, recordView, sendEmail, sentSince, withoutIdempotencyKey } from "../models/emails";
import { shortRouteWorkspace } from "../models/mail";

const MiB = 1024 * 1024;

/** One send, once per idempotency key (the header's wins over the body's): a retry replays the first reply. */
function sendOnce(emu: Emu, who: Principal, ws: Workspace, body: unknown, headerKey: string | undefined): Promise<Reply> {
  const key = headerKey ?? bodyIdempotencyKey(body);
  const send = async () => accepted(sendEmail(emu, who, ws, parseMessage(body)));
  return key ? replyOnce(emu, `${who.key.id} POST /v1/emails`, key, withoutIdempotencyKey(body), send) : send();
}

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
      // Not atomic: one `{id, status}` or `{error}` per message, in order.
      const out: unknown[] = [];
      for (const item of batchMessages(body)) {
        try {
          const r = await sendOnce(emu, principal, ws, item, undefined);
          const b = r.body as { id: string; status: string; sandbox: boolean; rejected?: unknown };
          // Each item says what a single send says, sandbox included (conventions §4.3 rule 4).
          out.push(r.status < 300 ? { id: b.id, status: b.status, sandbox: b.sandbox, ...(b.rejected ? { rejected: b.rejected } : {}) } : { error: r.body });
        } catch (err) {
          if (!(err instanceof PlatformError)) throw err;
          out.push({ error: err.body() });
        }
      }
      return accepted(out);
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
