// Mail sending domains through the real Pulumi CLI: the one-declaration flow reaches VERIFIED, a
// DKIM record deleted out of band is found and restored, a zone record made outside the program is
// never touched, an apex gets no MX, unpublished or wrong records fail naming each record, a sending
// domain taken out of the program is deleted alone, and destroy deletes each object by its own id.
import { expectAllGone, expectAllLive, expectOnlyRemoved, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, testStack } from "../support/stack";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => {
  await emu.control("POST", "/reset");
  emu.emu.settings.dnsPropagationMs = 1_500;
  emu.emu.settings.delegations = [];
});

test("VerifiedMailDomain: verified in one up, empty preview, DKIM drift found and repaired, others' records untouched, apex without MX", async () => {
  await emu.control("POST", "/dns/delegations", { domain: "lifecycle-a.test" });
  const s = await testStack(emu, "mail-verified", { zone: "lifecycle-a.test", apex: "true", region: "eu-central-1" });
  const api = emu.client();
  const ws = emu.workspaceId;
  try {
    const up = await s.stack.up();
    // the stack, the zone and its verification, and per sending domain: the component, the domain, its records, its verification
    expect(changes(up)).toEqual({ create: 11 });
    const out = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value])) as Record<string, any>;
    expect(out.published).toBe(true);
    expect(out.subStatus).toBe("VERIFIED");
    expect(out.apexStatus).toBe("VERIFIED");
    expect(out.subRecords.map((r: any) => r.name)).toEqual(["DKIM", "SPF", "MX", "DMARC"]);
    // an apex sending domain gets no MX
    expect(out.apexRecords.map((r: any) => r.name)).toEqual(["DKIM", "SPF", "DMARC"]);
    const sub = await api.get<any>(`/v1/workspaces/${ws}/mail/domains/${out.subId}`);
    expect(sub.domain).toMatchObject({ status: "VERIFIED", dailyQuota: 200, region: "eu-central-1" });
    const zoneRecords = await api.list<any>(`/v1/dns-zones/${out.zoneId}/records`);
    const dkim = out.subRecords[0];
    expect(zoneRecords.some((r) => r.name === dkim.zoneHost && r.name.endsWith("._domainkey.mail") && r.content === dkim.value)).toBe(true);
    expect(zoneRecords.filter((r) => r.type === "MX").map((r) => r.name)).toEqual(["mail"]);

    // a record made outside the program
    const outside = await api.create<any>(`/v1/dns-zones/${out.zoneId}/records`, { name: "@", type: "TXT", content: "site-verification=abc123" });

    // a preview afterwards is empty
    await expectNoDrift(s);

    // the DKIM record deleted out of band: refresh finds it, up restores it and re-verifies
    const dkimRecord = zoneRecords.find((r) => r.name === dkim.zoneHost)!;
    await api.delete(`/v1/dns-records/${dkimRecord.id}`);
    const drift = await s.stack.preview({ refresh: true, diff: true });
    // the record set puts the record back; the verification, found BROKEN, verifies again
    expect(changes(drift)).toEqual({ update: 2 });
    expect(drift.stdout).toContain("_domainkey.mail");
    const repaired = await s.stack.up({ refresh: true });
    expect(changes(repaired)).toEqual({ update: 2 });
    expect(repaired.outputs.subStatus.value).toBe("VERIFIED");
    const after = await api.list<any>(`/v1/dns-zones/${out.zoneId}/records`);
    expect(after.some((r) => r.name === dkim.zoneHost && r.content === dkim.value)).toBe(true);
    expect((await api.post<any>(`/v1/workspaces/${ws}/mail/domains/${out.subId}/verify`)).domain.status).toBe("VERIFIED");
    // never touched
    expect(after.find((r) => r.id === outside.id)).toMatchObject({ content: "site-verification=abc123", updatedAt: outside.updatedAt });

    // the apex sending domain taken out of the program: its domain and records alone are deleted,
    // the zone and the subdomain's parts stay
    const before = await stackResources(s.stack);
    await expectAllLive(emu, before);
    await s.stack.setConfig("apex", { value: "false" });
    expect(changes(await s.stack.up())).toEqual({ delete: 4 });
    await expectOnlyRemoved(emu, before, ["::apex", "::apex-records"]);
    expect((await api.get<any>(`/v1/workspaces/${ws}/mail/domains/${out.apexId}`).catch((e) => e)).status).toBe(404);

    // destroy deletes each object by its own id (the zone takes the outside record with it)
    const last = await stackResources(s.stack);
    await expectAllLive(emu, last);
    expect((await s.stack.destroy()).summary.resourceChanges).toEqual({ delete: 7 });
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("MailDomainVerification: unpublished records time out naming each record; a wrong SPF value is named as the problem, and publishing it as shown verifies", async () => {
  await emu.control("POST", "/dns/delegations", { domain: "lifecycle-b.test" });
  const s = await testStack(emu, "mail-parts", { zone: "lifecycle-b.test", publish: "false", timeout: "6s" });
  try {
    const started = Date.now();
    const never = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(never).toBeDefined();
    expect(Date.now() - started).toBeLessThan(90_000);
    const text = never!.message;
    expect(text).toContain("mail domain news.lifecycle-b.test is not verified after 6s (status PENDING)");
    expect(text).toContain("3 failing records");
    expect(text).toMatch(/TXT cp[0-9a-f]{6}\._domainkey\.news\.lifecycle-b\.test \(DKIM\): expected "v=DKIM1; k=rsa; p=/);
    expect(text).toContain('TXT news.lifecycle-b.test (SPF): expected "v=spf1 include:_spf.mail.cloudplatform.test ~all"; no SPF record');
    expect(text).toContain("MX news.lifecycle-b.test (MX): expected priority 10,");
    expect(text).not.toContain("(DMARC)");

    await s.stack.setAllConfig({ publish: { value: "true" }, spf: { value: "v=spf1 -all" } });
    const wrong = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(wrong).toBeDefined();
    expect(wrong!.message).toContain("mail domain news.lifecycle-b.test is BROKEN");
    expect(wrong!.message).toContain("1 failing record:");
    expect(wrong!.message).toContain("found 'v=spf1 -all' at news.lifecycle-b.test, expected 'v=spf1 include:_spf.mail.cloudplatform.test ~all'");
    expect(wrong!.message).toContain("Publish these records exactly as shown, then run `pulumi up` again.");

    // doing what it says: the record as shown, then up
    await s.stack.removeConfig("spf");
    const fixed = await s.stack.up();
    expect(fixed.outputs.status.value).toBe("VERIFIED");

    const last = await stackResources(s.stack);
    await expectAllLive(emu, last);
    await s.stack.destroy();
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
