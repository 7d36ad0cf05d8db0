// getCustomDomains and getPreviews, called as a program calls them (CLOUDPLATFORM_* from the environment).
import * as sdk from "../../sdk";
import { zoneRecords } from "../../sdk/verifiedCustomDomain";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
const saved = { ...process.env };
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  process.env.CLOUDPLATFORM_API_KEY = emu.apiKey;
  process.env.CLOUDPLATFORM_BASE_URL = emu.baseUrl;
});
afterAll(async () => {
  process.env = saved;
  await emu?.close();
});

test("getCustomDomains lists a service's domains oldest first with their targets; getPreviews lists its previews", async () => {
  const api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "fn" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  const svc = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
  expect(await sdk.getCustomDomains({ serviceId: svc.id })).toEqual({ domains: [] });
  const www = await api.create<any>(`/v1/services/${svc.id}/custom-domains`, { domain: "www.fn.test" });
  const apex = await api.create<any>(`/v1/services/${svc.id}/custom-domains`, { domain: "fn.test" });
  const { domains } = await sdk.getCustomDomains({ serviceId: svc.id });
  expect(domains.map((d) => [d.id, d.domain, d.status, d.dnsTarget.isApex, d.dnsTarget.records[0].type])).toEqual([
    [www.id, "www.fn.test", "PENDING", false, "CNAME"],
    [apex.id, "fn.test", "PENDING", true, "A"],
  ]);
  await expect(sdk.getCustomDomains({ serviceId: "00000000-0000-4000-8000-000000000000" })).rejects.toThrow(/404/);

  expect(await sdk.getPreviews({ serviceId: svc.id })).toEqual({ previews: [] });
  await api.put(`/v1/services/${svc.id}/previews-enabled`, { enabled: true });
  const opened = await emu.control("POST", "/previews", { serviceId: svc.id, prNumber: 12, headRef: "fix/typo", title: "Fix a typo" });
  const { previews } = await sdk.getPreviews({ serviceId: svc.id });
  expect(previews).toEqual([expect.objectContaining({ id: opened.id, prNumber: 12, headRef: "fix/typo", title: "Fix a typo", status: "ACTIVE", sourceServiceId: svc.id })]);
  expect(previews[0].url).toMatch(/^https:\/\//);
});

test("VerifiedCustomDomain publishes its records by full name, holding back only a CNAME the zone would refuse", () => {
  const rec = (type: string, fqdn: string, content: string, zoneId: string | null = "z1") => ({ id: null, zoneId, name: fqdn, fqdn, type, content, ttl: null, priority: null });
  const cname = rec("CNAME", "www.example.com", "web.host");
  const target = (records: any[], conflicts: any[]) => ({ cname: "web.host", aRecord: null, isApex: false, records, conflicts });
  expect(zoneRecords(target([cname], []), "z1")).toEqual([{ name: "www.example.com.", type: "CNAME", content: "web.host" }]);
  // a conflict in this zone holds the CNAME back; one in another zone or in public DNS does not
  expect(zoneRecords(target([cname], [rec("A", "www.example.com", "192.0.2.1")]), "z1")).toEqual([]);
  expect(zoneRecords(target([cname], [rec("A", "www.example.com", "192.0.2.1", null)]), "z1")).toHaveLength(1);
  expect(zoneRecords(target([cname], [rec("A", "www.example.com", "192.0.2.1", "z2")]), "z1")).toHaveLength(1);
  // an apex A can stand beside the conflicting ALIAS: it is published, and the verification names the ALIAS
  const a = rec("A", "example.com", "203.0.113.80");
  expect(zoneRecords(target([a], [rec("ALIAS", "example.com", "old.host")]), "z1")).toEqual([{ name: "example.com.", type: "A", content: "203.0.113.80" }]);
  // a state with no target (a create cut short) says what to do, instead of publishing nothing
  expect(() => zoneRecords(undefined, "z1")).toThrow("the custom domain's state holds no dnsTarget; run `pulumi refresh`, then `pulumi up`");
});
