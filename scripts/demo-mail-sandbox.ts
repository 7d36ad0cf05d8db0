// The mail-sandbox example: a verified sending domain, then the app's own mail code sending from it
// through the sandbox key: outcomes chosen by recipient, the outbox showing what was sent, the
// read-back saying `sandbox: true`, and nothing billed.
import { sendWelcome } from "../examples/mail-sandbox/app/mailer";
import type { DemoKit } from "./demo-kit";

const DOMAIN = "example-app.test";

export async function mailSandboxDemo(kit: DemoKit): Promise<void> {
  kit.title("mail-sandbox: an app's tests send through the sandbox from a VerifiedMailDomain");
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${kit.emu.baseUrl}/_emulator${path}`, {
      method,
      headers: method === "GET" ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return text ? JSON.parse(text) : undefined;
  };
  await control("POST", "/dns/delegations", { domain: DOMAIN });
  const s = await kit.example("mail-sandbox", { domain: DOMAIN });
  try {
    kit.say("pulumi up (zone, its proof, and the sending domain, verified)");
    const up = await s.stack.up({ onOutput: s.print });
    const from = up.outputs.fromAddress.value as string;
    kit.say(`status: ${up.outputs.mailStatus.value}; the app sends from ${from}`);

    const opts = { baseUrl: kit.emu.baseUrl, apiKey: kit.emu.keys.sandbox, from };
    for (const to of [`delivered@${kit.emu.testMailDomain}`, `bounced@${kit.emu.testMailDomain}`, "ada@example.com"]) {
      const sent = await sendWelcome(opts, to, "Ada");
      kit.say(`sandbox send to ${to}: ${JSON.stringify(sent)}`);
    }
    kit.say("GET /_emulator/mail/outbox (what the app sent; nothing left the platform):");
    for (const m of (await control("GET", "/mail/outbox")).data) kit.say(`  ${m.status.padEnd(10)} ${m.to}  "${m.subject}"  from ${m.from}`);
    const limits = await kit.api.get<any>("/v1/limits");
    const quota = limits.domains.find((d: any) => d.name === `mail.${DOMAIN}`);
    kit.say(`GET /v1/limits: mail.${DOMAIN} may send to ${quota.daily_quota} recipients today, ${quota.sent_today} used (sandbox sends are never billed)`);

    kit.say("clear the outbox and the bounce suppression, then pulumi destroy");
    await control("DELETE", "/mail/outbox");
    await control("DELETE", "/mail/suppressions");
    await s.stack.destroy({ onOutput: s.print });
  } finally {
    await s.dispose();
    await control("DELETE", `/dns/delegations/${DOMAIN}`);
  }
}
