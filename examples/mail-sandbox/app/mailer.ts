// The app's mail code: a welcome message sent with plain fetch to POST /v1/emails. An
// Idempotency-Key makes a retried send (after a timeout, say) deliver once.
import { randomUUID } from "node:crypto";

export interface MailerOptions {
  /** The platform's base address, e.g. the emulator's baseUrl. */
  baseUrl: string;
  /** A key with EMAIL_SEND: mail_live_/svc_live_ in production, mail_test_ (sandbox) in tests. */
  apiKey: string;
  /** `Name <address>` on a verified sending domain. */
  from: string;
}

export interface SendResult {
  id: string;
  status: string;
  sandbox: boolean;
  rejected?: { address: string; reason: string }[];
}

export async function sendWelcome(opts: MailerOptions, to: string, name: string, idempotencyKey: string = randomUUID()): Promise<SendResult> {
  const res = await fetch(`${opts.baseUrl.replace(/\/+$/, "")}/v1/emails`, {
    method: "POST",
    headers: { authorization: `Bearer ${opts.apiKey}`, "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: JSON.stringify({
      from: opts.from,
      to,
      subject: `Welcome, ${name}`,
      html: `<p>Hello ${escapeHtml(name)}, your account is ready.</p>`,
      text: `Hello ${name}, your account is ready.`,
      tags: { kind: "welcome" },
    }),
  });
  const body = (await res.json()) as SendResult & { message?: unknown };
  if (res.status !== 202) throw new Error(`sending the welcome mail failed: ${res.status} ${JSON.stringify(body.message)}`);
  // A suppressed recipient is not an error: log it and carry on.
  for (const r of body.rejected ?? []) console.warn(`not mailed: ${r.address} (${r.reason})`);
  return body;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
