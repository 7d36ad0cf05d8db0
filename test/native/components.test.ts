// The components served by the native plugin (Construct), from an inline TypeScript program on
// pulumi-cloudplatform/native: a VerifiedMailDomain and a VerifiedCustomDomain in a delegated zone
// go through up (published, verified, their children native resources under them), an empty
// preview, drift of a record in each (deleted, changed through the REST API) found by refresh and
// repaired by up, and destroy with nothing left. A VerifiedMailDomain in a zone nobody delegated
// fails naming each record public DNS does not show, and the plugin lives on to destroy it.
import * as cloud from "../../sdk/native";
import { expectAllGone, expectAllLive, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, inlineStack, testStack } from "../support/stack";
import { stateResources } from "../support/tracking";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0.05 } });
  emu.emu.settings.dnsPropagationMs = 300;
  emu.emu.settings.delegations = [];
});
afterAll(async () => emu?.close());

/** A zone, its verification, a web service, and the two components in the zone. */
function domains(zoneName: string) {
  return async () => {
    const zone = new cloud.DnsZone("zone", { name: zoneName });
    const verified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "30s" });
    const mail = new cloud.VerifiedMailDomain("news", { name: `news.${zoneName}`, zoneId: verified.zoneId, timeout: "30s" }, { dependsOn: [verified] });
    const project = new cloud.Project("app", { name: "components" });
    const env = new cloud.Environment("production", { projectId: project.id, name: "production" });
    const web = new cloud.Service("web", { environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27", port: 8080, timeout: "2m" });
    const www = new cloud.VerifiedCustomDomain("www", { serviceId: web.id, domain: `www.${zoneName}`, zoneId: verified.zoneId, timeout: "30s" }, { dependsOn: [verified] });
    return {
      zoneId: zone.id,
      mailStatus: mail.status,
      mailDomainId: mail.domainId,
      mailRecords: mail.records,
      // the children come back as resources of the native SDK
      mailChildId: mail.mailDomain.apply((d) => d.id),
      mailVerificationStatus: mail.verification.apply((v) => v.status),
      wwwStatus: www.status,
      wwwTarget: www.dnsTarget,
      wwwVerifiedAt: www.verifiedAt,
      wwwRecordSetZone: www.recordSet.apply((r) => r.zoneId),
      serviceHost: web.url,
    };
  };
}

test("VerifiedMailDomain and VerifiedCustomDomain from the plugin: up, empty preview, record drift repaired, destroy", async () => {
  await emu.control("POST", "/dns/delegations", { domain: "components.test" });
  const s = await inlineStack(emu, "native-components", domains("components.test"));
  const api = emu.client();
  try {
    const up = await s.stack.up();
    // stack, zone and its verification, project, environment, service, and each component with its three children
    expect(changes(up)).toEqual({ create: 14 });
    const out = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value])) as Record<string, any>;
    expect(out.mailStatus).toBe("VERIFIED");
    expect(out.mailVerificationStatus).toBe("VERIFIED");
    expect(out.mailChildId).toBe(out.mailDomainId);
    expect(out.mailRecords.map((r: any) => r.name)).toEqual(["DKIM", "SPF", "MX", "DMARC"]);
    expect(out.wwwStatus).toBe("ACTIVE");
    expect(out.wwwVerifiedAt).toEqual(expect.any(String));
    expect(out.wwwRecordSetZone).toBe(out.zoneId);
    expect((await api.get<any>(`/v1/workspaces/${emu.workspaceId}/mail/domains/${out.mailDomainId}`)).domain.status).toBe("VERIFIED");

    // the children are native resources under their component
    const state = (await stateResources(s)) as { type: string; parent?: string }[];
    const under = (component: string) => state.filter((r) => r.parent?.endsWith(component)).map((r) => r.type).sort();
    expect(under("cloudplatform:index:VerifiedMailDomain::news")).toEqual([
      "cloudplatform:index:DnsRecordSet", "cloudplatform:index:MailDomain", "cloudplatform:index:MailDomainVerification",
    ]);
    expect(under("cloudplatform:index:VerifiedCustomDomain::www")).toEqual([
      "cloudplatform:index:CustomDomain", "cloudplatform:index:CustomDomainVerification", "cloudplatform:index:DnsRecordSet",
    ]);

    await expectNoDrift(s);

    // out of band: the DKIM record deleted, the www CNAME pointed elsewhere
    const records = await api.list<any>(`/v1/dns-zones/${out.zoneId}/records`);
    const dkim = records.find((r) => r.type === "TXT" && r.name.includes("_domainkey"))!;
    const cname = records.find((r) => r.type === "CNAME" && r.name === "www")!;
    expect(dkim).toBeDefined();
    expect(cname).toBeDefined();
    await api.delete(`/v1/dns-records/${dkim.id}`);
    await api.patch(`/v1/dns-records/${cname.id}`, { name: "www", type: "CNAME", content: "elsewhere.example.net" });
    // Past the propagation delay (on the emulator's clock), so the verifications see it.
    await emu.control("POST", "/time", { advanceMs: 1_000 });
    const drift = await s.stack.preview({ refresh: true, diff: true });
    // each record set puts its record back; the mail verification, found failing, verifies again (an
    // ACTIVE custom domain stays ACTIVE on the platform)
    expect(changes(drift)).toEqual({ update: 3 });
    const updated = [...drift.stdout.matchAll(/~ (\S+): \(update\)\n.*\n\s*\[urn=\S+\$(\S+)::([\w-]+)\]/g)].map((m) => `${m[3]} ${m[2]}`).sort();
    expect(updated).toEqual([
      "news cloudplatform:index:MailDomainVerification", "news-records cloudplatform:index:DnsRecordSet", "www-records cloudplatform:index:DnsRecordSet",
    ]);
    expect(drift.stdout).toContain("_domainkey");
    expect(drift.stdout).toContain("elsewhere.example.net");
    const repaired = await s.stack.up({ refresh: true });
    expect(changes(repaired)).toEqual({ update: 3 });
    expect(repaired.outputs.mailStatus.value).toBe("VERIFIED");
    expect(repaired.outputs.wwwStatus.value).toBe("ACTIVE");
    const after = await api.list<any>(`/v1/dns-zones/${out.zoneId}/records`);
    expect(after.some((r) => r.name === dkim.name && r.content === dkim.content)).toBe(true);
    expect(after.find((r) => r.type === "CNAME" && r.name === "www")?.content).toBe(cname.content);
    expect(changes(await s.stack.preview({ expectNoChanges: true }))).toEqual({});

    const last = await stackResources(s.stack);
    await expectAllLive(emu, last);
    expect((await s.stack.destroy()).summary.resourceChanges).toEqual({ delete: 14 });
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("a VerifiedMailDomain whose zone nobody delegated fails naming each record public DNS does not show; destroy cleans up", async () => {
  const zoneName = "undelegated.test";
  // The program in its own process: its remote component is still registering when the failed up
  // shuts the engine down, which a program's process ends with and this one would report.
  const s = await testStack(emu, "native-mail-unverified", { zone: zoneName }, { process: true });
  try {
    const failed = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(failed).toBeDefined();
    const text = failed!.message;
    expect(text).toContain(`mail domain news.${zoneName} is not verified after 4s (status PENDING)`);
    expect(text).toMatch(/TXT cp[0-9a-f]{6}\._domainkey\.news\.undelegated\.test \(DKIM\): expected "v=DKIM1; k=rsa; p=/);
    expect(text).toContain(`TXT news.${zoneName} (SPF): expected "v=spf1 include:_spf.mail.cloudplatform.test ~all"; no SPF record`);
    expect(text).toContain(`MX news.${zoneName} (MX): expected priority 10,`);
    // the domain and its records were made, and stay in state for the next up
    const kinds = (await stackResources(s.stack)).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(["MailDomain", "DnsRecordSet", "DnsZone"]));
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
