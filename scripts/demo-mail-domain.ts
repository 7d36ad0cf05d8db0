// The mail-domain example: a delegated zone and a VerifiedMailDomain, with DNS taking a few
// seconds to propagate so the waiter is seen at work; then drift (the DKIM record deleted by hand),
// found by preview --refresh and repaired by up.
import type { DemoKit } from "./demo-kit";

const DOMAIN = "example-shop.test";

export async function mailDomainDemo(kit: DemoKit): Promise<void> {
  kit.title("mail-domain: a zone and a verified sending domain in one declaration");
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${kit.emu.baseUrl}/_emulator${path}`, {
      method,
      headers: method === "GET" ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  kit.say(`the registrar points ${DOMAIN}'s nameservers at the platform (POST /_emulator/dns/delegations)`);
  await control("POST", "/dns/delegations", { domain: DOMAIN });
  kit.say(`public DNS takes ${kit.emu.emu.settings.dnsPropagationMs} ms to show a new record`);
  const s = await kit.example("mail-domain", { domain: DOMAIN });
  try {
    kit.say("pulumi up (the verification polls with backoff until the records have propagated)");
    const up = await s.stack.up({ onOutput: s.print });
    kit.say(`status: ${up.outputs.mailStatus.value}; records published:`);
    for (const line of up.outputs.records.value as string[]) kit.say(`  ${line}`);

    kit.say("pulumi preview (expect no changes)");
    await s.stack.preview({ onOutput: s.print, expectNoChanges: true });

    const zoneId = up.outputs.zoneId.value as string;
    const records = await kit.api.list<{ id: string; name: string }>(`/v1/dns-zones/${zoneId}/records`);
    const dkim = records.find((r) => r.name.includes("._domainkey."));
    if (!dkim) throw new Error("the DKIM record is missing from the zone");
    kit.say(`behind Pulumi's back: DELETE the DKIM record ${dkim.name} (${dkim.id})`);
    await kit.api.delete(`/v1/dns-records/${dkim.id}`);

    kit.say("pulumi preview --refresh --diff (the record set misses a record; the domain is no longer verified)");
    await s.stack.preview({ refresh: true, diff: true, onOutput: s.print });

    kit.say("pulumi up --refresh (puts the record back and waits for verification again)");
    const repaired = await s.stack.up({ refresh: true, onOutput: s.print });
    kit.say(`status after repair: ${repaired.outputs.mailStatus.value}`);

    kit.say("pulumi destroy");
    await s.stack.destroy({ onOutput: s.print });
  } finally {
    await s.dispose();
    await control("DELETE", `/dns/delegations/${DOMAIN}`);
  }
}
