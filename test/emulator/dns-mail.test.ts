// DNS zones and records, the simulated public DNS, mail sending domains and suppressions, through
// the real client as users would call them.
import { createPublicKey } from "node:crypto";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let ws: string;
beforeAll(async () => {
  emu = await emulator();
  ws = emu.workspaceId;
});
afterAll(async () => emu?.close());
beforeEach(async () => {
  await emu.control("POST", "/reset");
  emu.emu.settings.delegations = [];
  emu.emu.settings.dnsPropagationMs = 0;
});

const zoneOf = async (name: string) => emu.client().create<any>(`/v1/workspaces/${ws}/dns-zones`, { name });

describe("DNS zones", () => {
  test("a new zone is pending with a TXT verificationRecord, and verifies by NS once delegated", async () => {
    const api = emu.client();
    const zone = await zoneOf("Acme-Mail.test.");
    expect(zone).toMatchObject({ name: "acme-mail.test", teamId: ws, published: false, verifiedAt: null, verificationMethod: null });
    expect(zone.verificationRecord).toMatchObject({ host: "_cloudplatform-verify", name: "_cloudplatform-verify.acme-mail.test", type: "TXT" });

    const pending = await api.post<any>(`/v1/dns-zones/${zone.id}/verify`);
    expect(pending.published).toBe(false);
    expect(pending.lastError).toContain("not proven");

    await emu.control("POST", "/dns/delegations", { domain: "acme-mail.test" });
    const proven = await api.post<any>(`/v1/dns-zones/${zone.id}/verify`);
    expect(proven).toMatchObject({ published: true, verificationMethod: "NS", verificationRecord: null, lastError: null });
    expect(proven.publishedAt).toBeTruthy();

    // names are unique while published, in every workspace
    await expect(zoneOf("acme-mail.test")).rejects.toMatchObject({ status: 409 });
    await expect(emu.client(emu.keys.otherWorkspace).create(`/v1/workspaces/${emu.otherWorkspaceId}/dns-zones`, { name: "acme-mail.test" }))
      .rejects.toMatchObject({ status: 409 });
    const listed = await api.list<any>(`/v1/workspaces/${ws}/dns-zones`);
    expect(listed.map((z) => z.id)).toEqual([zone.id]);
  });

  test("a zone verifies by TXT set at the customer's other DNS host, once propagated on the emulator clock", async () => {
    const api = emu.client();
    emu.emu.settings.dnsPropagationMs = 60_000;
    const zone = await zoneOf("txt-proof.test");
    // an unpublished zone's name is not held: another workspace may add it too
    await emu.client(emu.keys.otherWorkspace).create(`/v1/workspaces/${emu.otherWorkspaceId}/dns-zones`, { name: "txt-proof.test" });
    await emu.control("POST", "/dns/records", { name: zone.verificationRecord.name, type: "TXT", value: `"${zone.verificationRecord.value}"` });
    expect((await api.post<any>(`/v1/dns-zones/${zone.id}/verify`)).published).toBe(false);
    const seen = await emu.control("GET", `/dns/resolve?name=${zone.verificationRecord.name}&type=TXT`);
    expect(seen.answers).toEqual([]);
    await emu.control("POST", "/time", { advanceMs: 61_000 });
    const proven = await api.post<any>(`/v1/dns-zones/${zone.id}/verify`);
    expect(proven).toMatchObject({ published: true, verificationMethod: "TXT", verificationRecord: null });
  });

  test("records: relative or full names, normalised; clashes refused; zone file export; delete takes the records", async () => {
    const api = emu.client();
    const zone = await zoneOf("records.test");
    const a = await api.create<any>(`/v1/dns-zones/${zone.id}/records`, { name: "WWW.records.test.", type: "a", content: "192.0.2.10" });
    expect(a).toMatchObject({ zoneId: zone.id, name: "www", type: "A", ttl: 3600, priority: null, origin: "USER", editable: true });
    const mx = await api.create<any>(`/v1/dns-zones/${zone.id}/records`, { name: "@", type: "MX", content: "MX1.Example.net.", priority: 5 });
    expect(mx).toMatchObject({ name: "@", content: "mx1.example.net", priority: 5 });
    const long = "v=DKIM1; k=rsa; p=" + "A".repeat(400);
    await api.create(`/v1/dns-zones/${zone.id}/records`, { name: "sel._domainkey", type: "TXT", content: long });

    await expect(api.create(`/v1/dns-zones/${zone.id}/records`, { name: "www", type: "A", content: "192.0.2.10" })).rejects.toMatchObject({ status: 409 });
    await expect(api.create(`/v1/dns-zones/${zone.id}/records`, { name: "www", type: "CNAME", content: "x.example.net" })).rejects.toMatchObject({ status: 409 });
    await expect(api.create(`/v1/dns-zones/${zone.id}/records`, { name: "bad", type: "A", content: "not-an-ip" })).rejects.toMatchObject({ status: 400 });
    await expect(api.create(`/v1/dns-zones/${zone.id}/records`, { name: "t", type: "TXT", content: "x", priority: 1 })).rejects.toMatchObject({ status: 400 });

    const patched = await api.patch<any>(`/v1/dns-records/${a.id}`, { name: "www", type: "A", content: "192.0.2.11", ttl: 300 });
    expect(patched).toMatchObject({ id: a.id, content: "192.0.2.11", ttl: 300 });

    const text = await api.get<string>(`/v1/dns-zones/${zone.id}/export`);
    expect(typeof text).toBe("string");
    expect(text).toContain("$ORIGIN records.test.");
    expect(text).toMatch(/www\t300\tIN\tA\t192\.0\.2\.11/);
    expect(text).toMatch(/@\t3600\tIN\tMX\t5 mx1\.example\.net\./);
    // a long TXT value is split into strings of at most 255 characters
    expect(text).toContain(`sel._domainkey\t3600\tIN\tTXT\t"${long.slice(0, 255)}" "${long.slice(255)}"`);

    await api.delete(`/v1/dns-records/${mx.id}`);
    expect((await api.list<any>(`/v1/dns-zones/${zone.id}/records`)).map((r) => r.type).sort()).toEqual(["A", "TXT"]);
    await api.delete(`/v1/dns-zones/${zone.id}`);
    expect(await emu.leftovers()).toEqual({});
  });
});

describe("registered domains and the catalogue", () => {
  test("list, read, PATCH; search, availability, orders; purchases return a checkout only", async () => {
    const api = emu.client();
    const domains = await api.list<any>(`/v1/workspaces/${ws}/registered-domains`);
    expect(domains.length).toBe(2);
    const d = domains[0];
    expect(await api.get<any>(`/v1/registered-domains/${d.id}`)).toEqual(d);
    const patched = await api.patch<any>(`/v1/registered-domains/${d.id}`, { autoRenew: false, nameserverMode: "CUSTOM", nameservers: ["NS1.Other.net", "ns2.other.net"] });
    expect(patched).toMatchObject({ autoRenew: false, nameserverMode: "CUSTOM", customNameservers: ["ns1.other.net", "ns2.other.net"] });
    expect((await api.get<any>(`/v1/registered-domains/${d.id}`)).autoRenew).toBe(false);
    await expect(api.patch(`/v1/registered-domains/${d.id}`, { nameserverMode: "NC", nameservers: ["a.b.c", "d.e.f"] })).rejects.toMatchObject({ status: 400 });

    const quote = await api.get<any>(`/v1/registered-domains/${d.id}/renewal-quote`, { query: { years: 2 } });
    expect(quote).toMatchObject({ domain: d.domain, years: 2, expiresAt: d.expiresAt });
    expect(Date.parse(quote.newExpiresAt)).toBeGreaterThan(Date.parse(d.expiresAt));
    const renewal = await api.create<any>(`/v1/registered-domains/${d.id}/renewals`, { years: 2 });
    expect(Object.keys(renewal).sort()).toEqual(["amountKobo", "checkoutUrl", "reference"]);
    expect(renewal.amountKobo).toBe(quote.amountKobo);

    const results = await api.get<any>(`/v1/workspaces/${ws}/domain-search`, { query: { query: "https://www.MyShop.xyz/path" } });
    expect(results.query).toBe("myshop.xyz");
    const prices = results.available.map((r: any) => r.priceKobo);
    expect(prices).toEqual([...prices].sort((x, y) => x - y));
    expect(results.unavailable.map((r: any) => r.unavailableCode)).toEqual(expect.arrayContaining(["TLD_UNSUPPORTED", "TLD_COMING_SOON", "PRICING_UNAVAILABLE"]));
    expect(results.suggestions.every((r: any) => r.available)).toBe(true);

    const avail = await api.get<any>(`/v1/workspaces/${ws}/domain-availability`, { query: { domains: ["example.com", "fresh-name.ng"] } });
    expect(avail.data.map((r: any) => [r.domain, r.available, r.unavailableCode])).toEqual([["example.com", false, "TAKEN"], ["fresh-name.ng", true, null]]);

    const checkout = await api.create<any>(`/v1/workspaces/${ws}/registered-domains`, { domain: "fresh-name.ng", years: 1, contact: { name: "Ada" }, amountKobo: 1 });
    expect(checkout.amountKobo).toBe(avail.data[1].priceKobo);
    expect((await api.list<any>(`/v1/workspaces/${ws}/registered-domains`)).length).toBe(2);
    expect((await api.list<any>(`/v1/workspaces/${ws}/domain-orders`)).every((o: any) => o.status === "FULFILLED")).toBe(true);
  });
});

describe("mail sending domains", () => {
  test("a subdomain in a parent zone: records, zoneHost, tri-state flags, then verify through public DNS", async () => {
    const api = emu.client();
    const zone = await zoneOf("shop.test");
    const added = await api.create<any>(`/v1/workspaces/${ws}/mail/domains`, { name: "Mail.Shop.test", region: "eu-central-1" });
    expect(added.domain).toMatchObject({ name: "mail.shop.test", region: "eu-central-1", status: "PENDING", dailyQuota: 0, failingRecords: null, lastCheckedAt: null });
    expect(added.zone).toEqual({ name: "shop.test", dnsZoneId: zone.id, hostedOnPlatform: true });
    expect(added.propagating).toBeNull();
    const byName = Object.fromEntries(added.records.map((r: any) => [r.name, r]));
    expect(added.records.map((r: any) => r.name)).toEqual(["DKIM", "SPF", "MX", "DMARC"]);
    const dkim = byName.DKIM;
    const selector = dkim.host.split(".")[0];
    expect(dkim).toMatchObject({ type: "TXT", host: `${selector}._domainkey`, fqdn: `${selector}._domainkey.mail.shop.test`, zoneHost: `${selector}._domainkey.mail`, required: true });
    expect(dkim.value).toBe(`v=DKIM1; k=rsa; p=${added.domain.dkimPublicKey}`);
    // an RSA 2048 public key, as long as a real platform's: its TXT value is longer than one DNS string
    const key = createPublicKey({ key: Buffer.from(added.domain.dkimPublicKey, "base64"), format: "der", type: "spki" });
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails).toEqual({ modulusLength: 2048, publicExponent: 65537n });
    expect(dkim.value.length).toBeGreaterThan(255);
    // each domain its own key
    const other = await api.create<any>(`/v1/workspaces/${ws}/mail/domains`, { name: "news.shop.test" });
    expect(other.domain.dkimPublicKey).not.toBe(added.domain.dkimPublicKey);
    await api.delete(`/v1/workspaces/${ws}/mail/domains/${other.domain.id}`);
    expect(byName.SPF).toMatchObject({ type: "TXT", host: "@", fqdn: "mail.shop.test", zoneHost: "mail" });
    expect(byName.MX).toMatchObject({ type: "MX", host: "@", fqdn: "mail.shop.test", zoneHost: "mail", priority: 10, value: "inbound-smtp.eu-central-1.mail.cloudplatform.test" });
    expect(byName.DMARC).toMatchObject({ host: "_dmarc", zoneHost: "_dmarc.mail", required: false });
    for (const r of added.records) {
      expect(r.verified).toBeNull();
      expect(r.problem).toBeNull();
    }

    // verify before anything is published: every required record fails, status stays PENDING
    const first = await api.post<any>(`/v1/workspaces/${ws}/mail/domains/${added.domain.id}/verify`);
    expect(first.domain).toMatchObject({ status: "PENDING", failingRecords: ["DKIM", "SPF", "MX"] });
    expect(first.domain.lastCheckedAt).toBeTruthy();
    expect(first.records.map((r: any) => r.verified)).toEqual([false, false, false, false]);
    expect(first.records[0].problem).toContain(`no TXT record found at ${dkim.fqdn}`);
    expect(first.propagating).toBe(false);
    // a plain read is tri-state again
    const read = await api.get<any>(`/v1/workspaces/${ws}/mail/domains/${added.domain.id}`);
    expect(read.records.every((r: any) => r.verified === null && r.problem === null)).toBe(true);
    expect(read.domain.failingRecords).toEqual(["DKIM", "SPF", "MX"]);

    // publish the records in the zone; delegate and publish the zone; propagation on the clock
    emu.emu.settings.dnsPropagationMs = 30_000;
    for (const r of added.records) {
      await api.create(`/v1/dns-zones/${zone.id}/records`, { name: r.zoneHost, type: r.type, content: r.value, priority: r.priority ?? undefined });
    }
    await emu.control("POST", "/dns/delegations", { domain: "shop.test" });
    expect((await api.post<any>(`/v1/dns-zones/${zone.id}/verify`)).published).toBe(true);
    const propagating = await api.post<any>(`/v1/domains/${added.domain.id}/verify`);
    expect(propagating.domain.status).toBe("PENDING");
    expect(propagating.propagating).toBe(true);
    expect(propagating.records[0].problem).toContain("propagating");
    await emu.control("POST", "/time", { advanceMs: 31_000 });
    const verified = await api.post<any>(`/v1/domains/${added.domain.id}/verify`);
    expect(verified.domain).toMatchObject({ status: "VERIFIED", failingRecords: [], dailyQuota: 200 });
    expect(verified.domain.verifiedAt).toBeTruthy();
    expect(verified.records.map((r: any) => r.verified)).toEqual([true, true, true, true]);
    expect(verified.alignmentWarning).toBeNull();

    // a verified domain whose DKIM record disappears is BROKEN
    const records = await api.list<any>(`/v1/dns-zones/${zone.id}/records`);
    await api.delete(`/v1/dns-records/${records.find((r) => r.name.startsWith(selector)).id}`);
    const broken = await api.post<any>(`/v1/domains/${added.domain.id}/verify`);
    expect(broken.domain).toMatchObject({ status: "BROKEN", failingRecords: ["DKIM"] });
  });

  test("an apex domain gets no MX; a wrong SPF is BROKEN with found vs expected; DMARC alignment warning", async () => {
    const api = emu.client();
    const added = await api.create<any>(`/v1/workspaces/${ws}/mail/domains`, { name: "brand.test" });
    expect(added.records.map((r: any) => r.name)).toEqual(["DKIM", "SPF", "DMARC"]);
    expect(added.zone).toEqual({ name: "brand.test", dnsZoneId: null, hostedOnPlatform: false });
    expect(added.records[1].zoneHost).toBe("@");
    const dkim = added.records[0];
    await emu.control("POST", "/dns/records", { name: dkim.fqdn, type: "TXT", value: dkim.value });
    await emu.control("POST", "/dns/records", { name: "brand.test", type: "TXT", value: "v=spf1 include:_spf.other.test -all" });
    await emu.control("POST", "/dns/records", { name: "_dmarc.brand.test", type: "TXT", value: "v=DMARC1; p=reject; aspf=s" });
    const v = await api.post<any>(`/v1/workspaces/${ws}/mail/domains/${added.domain.id}/verify`);
    expect(v.domain).toMatchObject({ status: "BROKEN", failingRecords: ["SPF"] });
    expect(v.records[1].problem).toContain("found 'v=spf1 include:_spf.other.test -all' at brand.test, expected 'v=spf1 include:_spf.mail.cloudplatform.test ~all'");
    expect(v.records[2].verified).toBe(true);
    expect(v.alignmentWarning).toContain("p=reject");
  });

  test("scopes on both route families, the sandbox key, and workspaces kept apart", async () => {
    const path = `/v1/workspaces/${ws}/mail/domains`;
    const added = await emu.client().create<any>(path, { name: "scoped.test" });
    // short routes need EMAIL_SEND and PLATFORM_API together
    const sendOnly = await emu.client(emu.keys.sendOnly).get("/v1/domains").then(() => undefined, (e) => e);
    expect(sendOnly.status).toBe(403);
    expect(sendOnly.message).toContain("EMAIL_SEND");
    expect(sendOnly.message).toContain("PLATFORM_API");
    await expect(emu.client(emu.keys.mail).create("/v1/domains", { name: "x.test" })).rejects.toMatchObject({ status: 403 });
    await expect(emu.client(emu.keys.platformOnly).get("/v1/domains")).rejects.toMatchObject({ status: 403 });
    expect((await emu.client().list<any>("/v1/domains")).map((d) => d.id)).toEqual([added.domain.id]);
    // workspace routes need EMAIL_SEND (the send-only key reaches them; a platform-only key does not)
    expect((await emu.client(emu.keys.sendOnly).list<any>(path)).length).toBe(1);
    await expect(emu.client(emu.keys.platformOnly).list(path)).rejects.toMatchObject({ status: 403 });
    await expect(emu.client(emu.keys.readPlatform).get(`${path}/${added.domain.id}`)).rejects.toMatchObject({ status: 403 });
    // the sandbox key reads domains and suppressions, and changes nothing
    const sandbox = emu.client(emu.keys.sandbox);
    expect((await sandbox.get<any>(`${path}/${added.domain.id}`)).domain.id).toBe(added.domain.id);
    expect((await sandbox.list<any>("/v1/domains")).length).toBe(1);
    expect(await sandbox.list("/v1/suppressions")).toEqual([]);
    for (const call of [
      () => sandbox.create(path, { name: "sand.test" }),
      () => sandbox.post(`${path}/${added.domain.id}/verify`),
      () => sandbox.delete(`${path}/${added.domain.id}`),
      () => sandbox.create("/v1/domains", { name: "sand.test" }),
      () => sandbox.post(`/v1/domains/${added.domain.id}/verify`),
      () => sandbox.create("/v1/suppressions", { address: "a@b.test" }),
    ]) {
      const err = await call().then(() => undefined, (e) => e);
      expect(err?.status).toBe(403);
      expect(err.message).toContain("sandbox key");
    }
    // another workspace's key sees nothing of it
    const other = emu.client(emu.keys.otherWorkspace);
    await expect(other.get(`/v1/domains/${added.domain.id}`)).rejects.toMatchObject({ status: 404 });
    expect(await other.list("/v1/domains")).toEqual([]);
    // the mail key list never shows a key value
    const keys = await emu.client().list<any>(`/v1/workspaces/${ws}/mail/keys`);
    expect(keys.map((k) => k.isLive).sort()).toEqual([false, true]);
    expect(JSON.stringify(keys).includes(emu.keys.mail)).toBe(false);
    await emu.client().delete(`/v1/domains/${added.domain.id}`);
    await expect(emu.client().get(`${path}/${added.domain.id}`)).rejects.toMatchObject({ status: 404 });
  });

  test("suppressions: reason refused, complaint suppressions cannot be deleted", async () => {
    const api = emu.client();
    const bad = await api.post("/v1/suppressions", { address: "x@y.test", reason: "bounce" }).then(() => undefined, (e) => e);
    expect(bad.status).toBe(400);
    expect(bad.message).toContain("reason: is never accepted");
    const s = await api.post<any>("/v1/suppressions", { address: "Someone@Example.test" });
    expect(s).toMatchObject({ address: "someone@example.test", reason: "manual" });
    await expect(api.post("/v1/suppressions", { address: "someone@example.test" })).rejects.toMatchObject({ status: 409 });
    await emu.control("POST", "/mail/suppressions", { address: "angry@example.test", reason: "complaint" });
    expect((await api.list<any>("/v1/suppressions")).map((x) => x.address)).toEqual(["someone@example.test", "angry@example.test"]);
    const err = await api.delete(`/v1/suppressions/${encodeURIComponent("angry@example.test")}`).then(() => undefined, (e) => e);
    expect(err.status).toBe(409);
    expect(err.message).toContain("complained");
    await api.delete(`/v1/suppressions/${encodeURIComponent("someone@example.test")}`);
    await expect(api.delete("/v1/suppressions/nobody%40example.test")).rejects.toMatchObject({ status: 404 });
  });
});
