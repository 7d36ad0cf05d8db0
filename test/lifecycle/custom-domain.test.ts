// Custom domains through the real Pulumi CLI: VerifiedCustomDomains for www and the apex reach
// ACTIVE in a platform zone in one up (each starting a redeploy) and a preview afterwards is empty;
// previewsEnabled changed out of band is found by refresh and repaired; a conflicting record in
// public DNS, and one in the zone, fail the verification naming them; once they are removed,
// `up --refresh` publishes and verifies; zone records the program does not own are never touched;
// destroy leaves nothing behind.
import { expectAllGone, expectAllLive, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, testStack } from "../support/stack";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0.05 } });
});
afterAll(async () => emu?.close());

test("VerifiedCustomDomain: ACTIVE in one up, empty preview, previewsEnabled drift repaired, conflicts named then cleared, destroy leaves nothing", async () => {
  await emu.control("POST", "/reset");
  emu.emu.settings.dnsPropagationMs = 1_500;
  emu.emu.settings.delegations = [];
  await emu.control("POST", "/dns/delegations", { domain: "cd-life.test" });
  const s = await testStack(emu, "custom-domain", { zone: "cd-life.test", external: "app.elsewhere-life.test" });
  const api = emu.client();
  try {
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 14 });
    const out = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value])) as Record<string, any>;
    expect(out.wwwStatus).toBe("ACTIVE");
    expect(out.apexStatus).toBe("ACTIVE");
    expect(out.previewsEnabled).toBe(true);
    expect(out.domains).toEqual(["cd-life.test ACTIVE", "www.cd-life.test ACTIVE"]);
    const host = new URL((await api.get<any>(`/v1/services/${out.serviceId}`)).url).host;
    expect(out.wwwTarget).toMatchObject({ cname: host, isApex: false, conflicts: [] });
    expect(out.apexTarget).toMatchObject({ isApex: true, conflicts: [] });
    const records = await api.list<any>(`/v1/dns-zones/${out.zoneId}/records`);
    expect(records.map((r) => `${r.name} ${r.type} ${r.content}`).sort()).toEqual([`@ A ${out.apexTarget.aRecord}`, `www CNAME ${host}`]);
    // each domain that turned ACTIVE started a redeploy
    const deploys = await api.list<any>(`/v1/services/${out.serviceId}/deploys`);
    expect(deploys.map((d) => d.trigger).sort()).toEqual(["FIRST_DEPLOY", "SYSTEM", "SYSTEM"]);
    expect((await api.get<any>(`/v1/services/${out.serviceId}`)).previewsEnabled).toBe(true);

    await expectNoDrift(s);

    // out of band: previews turned off, an A record at the other DNS host where a CNAME must go, and
    // records in the zone the program does not own (one in the way of shop.cd-life.test)
    await api.put(`/v1/services/${out.serviceId}/previews-enabled`, { enabled: false });
    const external = await emu.control("POST", "/dns/records", { name: "app.elsewhere-life.test", type: "A", value: "192.0.2.44" });
    const theirs = await api.create<any>(`/v1/dns-zones/${out.zoneId}/records`, { name: "shop", type: "A", content: "192.0.2.77" });
    const untouched = await api.create<any>(`/v1/dns-zones/${out.zoneId}/records`, { name: "@", type: "TXT", content: "site-verification=abc123" });
    await s.stack.setAllConfig({ conflicts: { value: "true" }, conflictTimeout: { value: "3s" } });

    // refresh finds the drift; the new domains are planned
    const drift = await s.stack.preview({ refresh: true, diff: true });
    expect(changes(drift)).toEqual({ update: 1, create: 6 });
    expect(drift.stdout).toContain("previewsEnabled");

    // up repairs previewsEnabled, and each verification fails naming what is in its way
    const failed = await s.stack.up({ refresh: true }).then(() => undefined, (e: Error) => e);
    expect(failed).toBeDefined();
    const text = failed!.message;
    expect(text).toContain("custom domain app.elsewhere-life.test is not ACTIVE after 3s (status PENDING)");
    expect(text).toContain(`missing or wrong: CNAME app.elsewhere-life.test: expected "${host}"; found A 192.0.2.44 (conflict, in public DNS)`);
    expect(text).toContain('conflicting: A app.elsewhere-life.test "192.0.2.44" (in public DNS, at the domain\'s DNS host): remove it');
    expect(text).toContain("custom domain shop.cd-life.test is not ACTIVE after 3s (status PENDING)");
    expect(text).toContain(`conflicting: A shop.cd-life.test "192.0.2.77" (in platform zone ${out.zoneId}, record ${theirs.id}): remove it`);
    expect((await api.get<any>(`/v1/services/${out.serviceId}`)).previewsEnabled).toBe(true);
    // the record in the way was left alone
    expect((await api.list<any>(`/v1/dns-zones/${out.zoneId}/records`)).find((r) => r.id === theirs.id)).toMatchObject({ content: "192.0.2.77" });

    // the conflicts removed (and the CNAME published at the other host), `up --refresh` finishes the job
    await api.delete(`/v1/dns-records/${theirs.id}`);
    await emu.control("DELETE", `/dns/records/${external.id}`);
    const cname = await emu.control("POST", "/dns/records", { name: "app.elsewhere-life.test", type: "CNAME", value: host });
    await emu.control("POST", "/time", { advanceMs: 2_000 });
    // refresh re-verifies: app.elsewhere-life.test is ACTIVE already; shop's record is published, then verified
    const fixed = await s.stack.up({ refresh: true });
    expect(changes(fixed)).toEqual({ update: 2 });
    const listed = await api.list<any>(`/v1/services/${out.serviceId}/custom-domains`);
    expect(listed.map((d) => `${d.domain} ${d.status}`).sort()).toEqual([
      "app.elsewhere-life.test ACTIVE", "cd-life.test ACTIVE", "shop.cd-life.test ACTIVE", "www.cd-life.test ACTIVE",
    ]);
    expect((await api.list<any>(`/v1/dns-zones/${out.zoneId}/records`)).find((r) => r.id === untouched.id))
      .toMatchObject({ content: "site-verification=abc123", updatedAt: untouched.updatedAt });

    const last = await stackResources(s.stack);
    await expectAllLive(emu, last);
    await s.stack.destroy();
    await expectAllGone(emu, last);
    await emu.control("DELETE", `/dns/records/${cname.id}`);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
