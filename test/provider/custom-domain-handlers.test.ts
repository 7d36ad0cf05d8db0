// The CustomDomain, CustomDomainVerification and Service.previewsEnabled handlers called directly:
// check rules, diff replace lists, create/read/delete with drift and a gone domain, and the
// verification's timeout message naming missing, wrong and conflicting records.
import { makeContext } from "../../provider/config";
import { CustomDomain } from "../../provider/resources/customDomain";
import { CustomDomainVerification, failureMessage } from "../../provider/resources/customDomainVerification";
import { type Context, ResourceInitError, UNKNOWN } from "../../provider/resources/framework";
import { Service } from "../../provider/resources/service";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure, plainDiff } from "../support/helpers";

let emu: TestEmulator;
let ctx: Context;
let environmentId: string;
let serviceId: string;
let host: string;
const logs: string[] = [];
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl }, {}, (m) => logs.push(m));
});
afterAll(async () => {
  await ctx.client.close();
  await emu.close();
});
beforeEach(async () => {
  await emu.control("POST", "/reset");
  emu.emu.settings.speed = 0;
  emu.emu.settings.dnsPropagationMs = 0;
  emu.emu.settings.delegations = [];
  logs.length = 0;
  const project = await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "handlers" });
  environmentId = (await ctx.client.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" })).id;
  const svc = await ctx.client.create<any>(`/v1/environments/${environmentId}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
  serviceId = svc.id;
  host = new URL((await ctx.client.get<any>(`/v1/services/${svc.id}`)).url).host;
});

const reasons = (r: { failures?: { reason: string }[] }) => (r.failures ?? []).map((f) => f.reason);

test("check: domain syntax with its own message for a scheme, path or port; lowercased; ids non-empty; timeout durations", async () => {
  const ok = await CustomDomain.check!({}, { serviceId: "svc", domain: "WWW.Example.COM." });
  expect(ok.inputs).toEqual({ serviceId: "svc", domain: "www.example.com" });
  expect(reasons(await CustomDomain.check!({}, { serviceId: "svc", domain: "https://www.example.com" }))).toEqual([
    "domain: 'https://www.example.com' must be a bare domain name without a scheme (drop 'https://')",
  ]);
  expect(reasons(await CustomDomain.check!({}, { serviceId: "svc", domain: "www.example.com/shop" }))[0]).toContain("without a path");
  expect(reasons(await CustomDomain.check!({}, { serviceId: "svc", domain: "www.example.com:8443" }))[0]).toContain("without a port");
  expect(reasons(await CustomDomain.check!({}, { serviceId: "svc", domain: "localhost" }))[0]).toContain("is not a valid domain name");
  expect(reasons(await CustomDomain.check!({}, { serviceId: "", domain: "a.example.com" }))).toEqual(["serviceId: must not be empty"]);
  // a rule whose own input is known is checked while another input is still unknown
  expect(reasons(await CustomDomain.check!({}, { serviceId: UNKNOWN, domain: "http://x.example.com" }))[0]).toMatch(/^domain: .*scheme/);
  expect((await CustomDomain.check!({}, { serviceId: UNKNOWN, domain: "x.example.com" })).inputs).toEqual({ serviceId: UNKNOWN, domain: "x.example.com" });

  expect(reasons(await CustomDomainVerification.check!({}, { domainId: "d", timeout: "soon" }))[0]).toMatch(/^timeout: must be a duration/);
  expect(reasons(await CustomDomainVerification.check!({}, { domainId: "" }))).toEqual(["domainId: must not be empty"]);
  expect((await CustomDomainVerification.check!({}, { domainId: "d", timeout: "90s" })).inputs).toEqual({ domainId: "d", timeout: "90s" });
});

test("diff: domain and serviceId replace; the same domain on another service is deleted first", async () => {
  const olds = { serviceId: "a", domain: "www.example.com" } as any;
  expect(plainDiff(await CustomDomain.diff!("id", olds, { serviceId: "a", domain: "www.example.com" }))).toMatchObject({ changes: false, replaces: [] });
  expect(plainDiff(await CustomDomain.diff!("id", olds, { serviceId: "a", domain: "shop.example.com" }))).toEqual({ changes: true, replaces: ["domain"], deleteBeforeReplace: false });
  expect(plainDiff(await CustomDomain.diff!("id", olds, { serviceId: "b", domain: "www.example.com" }))).toEqual({ changes: true, replaces: ["serviceId"], deleteBeforeReplace: true });
  expect(plainDiff(await CustomDomain.diff!("id", olds, { serviceId: UNKNOWN, domain: "www.example.com" }))).toMatchObject({ replaces: ["serviceId"] });
  const v = { domainId: "d", status: "ACTIVE" } as any;
  expect(plainDiff(await CustomDomainVerification.diff!("d", v, { domainId: "d", timeout: "1m" }))).toEqual({ changes: false, replaces: [] });
  expect(plainDiff(await CustomDomainVerification.diff!("d", { ...v, status: "PENDING" }, { domainId: "d" }))).toEqual({ changes: true, replaces: [] });
  expect(plainDiff(await CustomDomainVerification.diff!("d", v, { domainId: "e" }))).toEqual({ changes: true, replaces: ["domainId"] });
});

test("create, read (drift of status, a gone domain), delete (a 404 is success); a WEB service only", async () => {
  const created = await CustomDomain.create(ctx, { serviceId, domain: "www.handlers.test" });
  expect(created.outs).toMatchObject({
    serviceId, domain: "www.handlers.test", status: "PENDING", lastCheck: null, verifiedAt: null,
    dnsTarget: { cname: host, aRecord: null, isApex: false, conflicts: [], records: [{ type: "CNAME", fqdn: "www.handlers.test", content: host, zoneId: null }] },
  });
  expect(logs.join("\n")).toContain(`publish CNAME www.handlers.test -> ${host}`);

  // drift: the domain became ACTIVE behind Pulumi's back, and a conflict appeared
  await emu.control("POST", "/dns/records", { name: "www.handlers.test", type: "CNAME", value: host });
  await ctx.client.post(`/v1/custom-domains/${created.id}/verify`);
  await emu.control("POST", "/dns/records", { name: "www.handlers.test", type: "TXT", value: "hello" });
  const read = await CustomDomain.read!(ctx, created.id, created.outs);
  expect(read.inputs).toEqual({ serviceId, domain: "www.handlers.test" });
  expect(read.props).toMatchObject({ status: "ACTIVE", verifiedAt: expect.any(String) });
  expect(read.props!.dnsTarget.conflicts).toEqual([expect.objectContaining({ type: "TXT", content: "hello", zoneId: null })]);

  await CustomDomain.delete!(ctx, created.id, created.outs);
  expect(await CustomDomain.read!(ctx, created.id, created.outs)).toEqual({});
  await CustomDomain.delete!(ctx, created.id, created.outs);

  const db = await ctx.client.create<any>(`/v1/environments/${environmentId}/services`, { name: "db", type: "POSTGRES" });
  const err = await failure(CustomDomain.create(ctx, { serviceId: db.id, domain: "db.handlers.test" }));
  expect(err.message).toContain("custom domains attach to web services (WEB or STATIC) only");
  expect(err.message).toContain("POSTGRES");
});

test("verification: waits through propagation to ACTIVE, showing progress", async () => {
  emu.emu.settings.dnsPropagationMs = 1_500;
  const d = await CustomDomain.create(ctx, { serviceId, domain: "app.wait.test" });
  await emu.control("POST", "/dns/records", { name: "app.wait.test", type: "CNAME", value: `${host}.` });
  const v = await CustomDomainVerification.create(ctx, { domainId: d.id, timeout: "30s" });
  expect(v.outs).toMatchObject({ domainId: d.id, serviceId, domain: "app.wait.test", status: "ACTIVE", verifiedAt: expect.any(String), timeout: "30s" });
  expect(logs.some((l) => l.includes("custom domain app.wait.test: PENDING; last check: CNAME app.wait.test: expected") && l.includes("next check in"))).toBe(true);
  const read = await CustomDomainVerification.read!(ctx, d.id, v.outs);
  expect(read).toMatchObject({ id: d.id, props: { status: "ACTIVE" }, inputs: { domainId: d.id, timeout: "30s" } });
  // a key that may not call verify reads the service's list instead
  const ro = makeContext({ apiKey: emu.keys.readPlatform, baseUrl: emu.baseUrl });
  try {
    expect(await CustomDomainVerification.read!(ro, d.id, v.outs)).toMatchObject({ id: d.id, props: { status: "ACTIVE", serviceId } });
  } finally {
    await ro.client.close();
  }
  await CustomDomain.delete!(ctx, d.id, d.outs);
  expect(await CustomDomainVerification.read!(ctx, d.id, v.outs)).toEqual({});
});

test("verification timeout: created but broken, naming the wrong record (expected and found) and each conflict to remove", async () => {
  const d = await CustomDomain.create(ctx, { serviceId, domain: "www.broken.test" });
  await emu.control("POST", "/dns/records", { name: "www.broken.test", type: "CNAME", value: "old-host.example.net" });
  await emu.control("POST", "/dns/records", { name: "www.broken.test", type: "TXT", value: "v=spf1 -all" });
  const err = await failure(CustomDomainVerification.create(ctx, { domainId: d.id, timeout: "1s" }));
  expect(err).toBeInstanceOf(ResourceInitError);
  expect(err.id).toBe(d.id);
  expect(err.properties).toMatchObject({ status: "PENDING", domain: "www.broken.test" });
  expect(err.message).toContain("custom domain www.broken.test is not ACTIVE after 1s (status PENDING):");
  expect(err.message).toContain(`missing or wrong: CNAME www.broken.test: expected "${host}"; found CNAME old-host.example.net (wrong target)`);
  expect(err.message).toContain('conflicting: TXT www.broken.test "v=spf1 -all" (in public DNS, at the domain\'s DNS host): remove it');

  // nothing at all: the record is named as missing
  const apex = await CustomDomain.create(ctx, { serviceId, domain: "broken.test" });
  const missing = await failure(CustomDomainVerification.create(ctx, { domainId: apex.id, timeout: "1s" }));
  expect(missing.message).toContain(`missing or wrong: A broken.test: expected "${apex.outs.dnsTarget.aRecord}"; found nothing`);
  expect(missing.message).not.toContain("conflicting:");
});

test("failureMessage: a record that resolves is not listed; only the conflict in a platform zone is", () => {
  const record = { id: null, zoneId: "z1", name: "www", fqdn: "www.example.com", type: "CNAME", content: "web.host", ttl: 3600, priority: null };
  const conflict = { ...record, id: "r9", type: "A", content: "192.0.2.9" };
  const msg = failureMessage({
    domainId: "d", serviceId: "s", domain: "www.example.com", status: "PENDING", verifiedAt: null, timeout: null,
    lastCheck: "CNAME www.example.com: expected web.host; found it, A 192.0.2.9 (conflict, in the platform zone); remove each conflicting record",
    dnsTarget: { cname: "web.host", aRecord: null, isApex: false, records: [record], conflicts: [conflict] },
  }, 90_000);
  expect(msg).not.toContain("missing or wrong");
  expect(msg).toContain('conflicting: A www.example.com "192.0.2.9" (in platform zone z1, record r9): remove it');
});

test("Service.previewsEnabled: set after create, changed on update, read back (drift)", async () => {
  const inputs = { environmentId, name: "pr-app", type: "WEB" as const, image: "nginx:1.27", previewsEnabled: true };
  const svc = await Service.create(ctx, inputs);
  expect(svc.outs.previewsEnabled).toBe(true);
  expect((await ctx.client.get<any>(`/v1/services/${svc.id}`)).previewsEnabled).toBe(true);
  expect(plainDiff(await Service.diff!(svc.id, svc.outs, { ...inputs, previewsEnabled: false }))).toMatchObject({ changes: true, replaces: [] });

  await ctx.client.put(`/v1/services/${svc.id}/previews-enabled`, { enabled: false });
  const read = await Service.read!(ctx, svc.id, svc.outs);
  expect(read.inputs).toMatchObject({ previewsEnabled: false });

  const updated = await Service.update!(ctx, svc.id, read.props!, inputs);
  expect(updated.outs.previewsEnabled).toBe(true);
  expect((await ctx.client.get<any>(`/v1/services/${svc.id}`)).previewsEnabled).toBe(true);
  // undeclared, it is not reported
  const plain = await Service.create(ctx, { environmentId, name: "plain", type: "WEB", image: "nginx:1.27" });
  expect(plain.outs.previewsEnabled).toBeUndefined();
});
