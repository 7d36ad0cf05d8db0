// Custom domains and pull-request previews, through the real client as users would call them.
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
let ws: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  ws = emu.workspaceId;
});
afterAll(async () => emu?.close());
beforeEach(async () => {
  await emu.control("POST", "/reset");
  emu.emu.settings.delegations = [];
  emu.emu.settings.dnsPropagationMs = 0;
  emu.emu.settings.speed = 0;
});

async function setup(types: string[] = ["WEB"]) {
  const api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${ws}/projects`, { name: "domains" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  const svcs: any[] = [];
  for (const [i, type] of types.entries()) {
    const body: Record<string, unknown> = { name: `s${i}`, type };
    if (type === "WEB" || type === "CRON") body.image = "nginx:1.27";
    if (type === "CRON") body.schedule = "0 * * * *";
    svcs.push(await api.create<any>(`/v1/environments/${env.id}/services`, body));
  }
  return { api, project, env, svcs };
}
const deploys = async (serviceId: string) => (await emu.client().list<any>(`/v1/services/${serviceId}/deploys`));
const host = async (serviceId: string) => new URL((await emu.client().get<any>(`/v1/services/${serviceId}`)).url).host;

describe("custom domains", () => {
  test("WEB only, domain syntax, 409 for a domain on another service anywhere, idempotent create, list oldest first", async () => {
    const { api, svcs } = await setup(["WEB", "WEB", "POSTGRES", "CRON"]);
    const [web, web2, db, cron] = svcs;
    for (const other of [db, cron]) {
      const err = await failure(api.create(`/v1/services/${other.id}/custom-domains`, { domain: "x.example.com" }));
      expect(err.status).toBe(400);
      expect(String(err.messages)).toContain(`web services (WEB or STATIC) only; service ${other.id} is ${other.type}`);
    }
    for (const bad of ["https://www.example.com", "www.example.com:8080", "www.example.com/path", "nodot", "bad_-.example..com", "web.cloudplatform.app"]) {
      const err = await failure(api.create(`/v1/services/${web.id}/custom-domains`, { domain: bad }));
      expect(err.status).toBe(400);
      expect(String(err.messages)).toMatch(/^domain: /);
    }
    const sub = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "WWW.Example.com." }, { idempotencyKey: "cd-1" });
    expect(sub).toMatchObject({ serviceId: web.id, domain: "www.example.com", status: "PENDING", lastCheck: null, verifiedAt: null });
    const again = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "WWW.Example.com." }, { idempotencyKey: "cd-1" });
    expect(again.id).toBe(sub.id);
    const dup = await failure(api.create(`/v1/services/${web.id}/custom-domains`, { domain: "www.example.com" }));
    expect(dup.status).toBe(409);
    const taken = await failure(api.create(`/v1/services/${web2.id}/custom-domains`, { domain: "www.example.com" }));
    expect(taken.status).toBe(409);
    expect(String(taken.messages)).toContain("already attached to another service");
    // anywhere on the platform: another workspace's service too
    const other = emu.client(emu.keys.otherWorkspace);
    const op = await other.create<any>(`/v1/workspaces/${emu.otherWorkspaceId}/projects`, { name: "o" });
    const oe = await other.create<any>(`/v1/projects/${op.id}/environments`, { name: "prod" });
    const os = await other.create<any>(`/v1/environments/${oe.id}/services`, { name: "w", type: "WEB", image: "nginx:1.27" });
    expect((await failure(other.create(`/v1/services/${os.id}/custom-domains`, { domain: "www.example.com" }))).status).toBe(409);
    // ...which cannot see or delete ours
    expect((await failure(other.delete(`/v1/custom-domains/${sub.id}`))).status).toBe(404);

    const apex = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "example.com" });
    expect((await api.list<any>(`/v1/services/${web.id}/custom-domains`)).map((d) => d.id)).toEqual([sub.id, apex.id]);
  });

  test("dnsTarget: a CNAME to the service's host for a subdomain, an A record for an apex", async () => {
    const { api, svcs } = await setup();
    const web = svcs[0];
    const h = await host(web.id);
    const sub = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "app.shop.com.ng" });
    expect(sub.dnsTarget).toMatchObject({ cname: h, aRecord: null, isApex: false, conflicts: [] });
    expect(sub.dnsTarget.records).toEqual([expect.objectContaining({ name: "app.shop.com.ng", type: "CNAME", content: h, zoneId: null })]);
    const apex = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "shop.com.ng" });
    expect(apex.dnsTarget).toMatchObject({ isApex: true, aRecord: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/) });
    expect(apex.dnsTarget.records).toEqual([expect.objectContaining({ type: "A", content: apex.dnsTarget.aRecord })]);
    // with a platform zone holding the name, records are named relative to it
    const zone = await api.create<any>(`/v1/workspaces/${ws}/dns-zones`, { name: "shop.com.ng" });
    const [listedSub, listedApex] = await api.list<any>(`/v1/services/${web.id}/custom-domains`);
    expect(listedSub.dnsTarget.records[0]).toMatchObject({ zoneId: zone.id, name: "app", type: "CNAME" });
    expect(listedApex.dnsTarget.records[0]).toMatchObject({ zoneId: zone.id, name: "@", type: "A" });
  });

  test("conflicts from public DNS and from a platform zone block verification, and lastCheck says what was found", async () => {
    const { api, svcs } = await setup();
    const web = svcs[0];
    const h = await host(web.id);
    // public DNS at the customer's other DNS host: an A record where the CNAME must go
    await emu.control("POST", "/dns/records", { name: "www.elsewhere.test", type: "A", value: "192.0.2.44" });
    const www = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "www.elsewhere.test" });
    expect(www.dnsTarget.conflicts).toEqual([expect.objectContaining({ type: "A", content: "192.0.2.44", zoneId: null })]);
    const checked = await api.post<any>(`/v1/custom-domains/${www.id}/verify`);
    expect(checked.status).toBe("PENDING");
    expect(checked.lastCheck).toBe(`CNAME www.elsewhere.test: expected ${h}; found A 192.0.2.44 (conflict, in public DNS); remove each conflicting record`);

    // a CNAME at a name that needs an A record
    await emu.control("POST", "/dns/records", { name: "elsewhere.test", type: "CNAME", value: "parking.example.net" });
    await emu.control("POST", "/dns/records", { name: "elsewhere.test", type: "TXT", value: "v=spf1 -all" });
    const bare = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "elsewhere.test" });
    expect(bare.dnsTarget.conflicts.map((c: any) => `${c.type} ${c.content}`)).toEqual(["CNAME parking.example.net"]);
    expect((await api.post<any>(`/v1/custom-domains/${bare.id}/verify`)).lastCheck)
      .toBe(`A elsewhere.test: expected ${bare.dnsTarget.aRecord}; found CNAME parking.example.net (conflict, in public DNS); remove each conflicting record`);

    // a platform zone holding the name: an ALIAS at an apex that needs an A record
    await emu.control("POST", "/dns/delegations", { domain: "zoned.test" });
    const zone = await api.create<any>(`/v1/workspaces/${ws}/dns-zones`, { name: "zoned.test" });
    await api.post(`/v1/dns-zones/${zone.id}/verify`);
    const alias = await api.create<any>(`/v1/dns-zones/${zone.id}/records`, { name: "@", type: "ALIAS", content: "old-host.example.net" });
    const apex = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "zoned.test" });
    expect(apex.dnsTarget.conflicts).toEqual([expect.objectContaining({ id: alias.id, zoneId: zone.id, type: "ALIAS" })]);
    await api.create(`/v1/dns-zones/${zone.id}/records`, { name: "@", type: "A", content: apex.dnsTarget.aRecord });
    const blocked = await api.post<any>(`/v1/custom-domains/${apex.id}/verify`);
    expect(blocked.status).toBe("PENDING");
    expect(blocked.lastCheck).toContain(`A zoned.test: expected ${apex.dnsTarget.aRecord}; found it, ALIAS old-host.example.net (conflict, in the platform zone)`);
    await api.delete(`/v1/dns-records/${alias.id}`);
    expect((await api.post<any>(`/v1/custom-domains/${apex.id}/verify`)).status).toBe("ACTIVE");
  });

  test("verify waits for propagation on the emulator clock; ACTIVE sets verifiedAt and redeploys; DELETE redeploys; the service takes its domains", async () => {
    const { api, svcs } = await setup();
    const web = svcs[0];
    const h = await host(web.id);
    emu.emu.settings.dnsPropagationMs = 60_000;
    await emu.control("POST", "/dns/delegations", { domain: "prop.test" });
    const zone = await api.create<any>(`/v1/workspaces/${ws}/dns-zones`, { name: "prop.test" });
    await api.post(`/v1/dns-zones/${zone.id}/verify`);
    const d = await api.create<any>(`/v1/services/${web.id}/custom-domains`, { domain: "app.prop.test" });
    const missing = await api.post<any>(`/v1/custom-domains/${d.id}/verify`);
    expect(missing.lastCheck).toBe(`CNAME app.prop.test: expected ${h}; found nothing`);
    const rec = d.dnsTarget.records[0];
    await api.create(`/v1/dns-zones/${zone.id}/records`, { name: rec.name, type: rec.type, content: rec.content });
    const early = await api.post<any>(`/v1/custom-domains/${d.id}/verify`);
    expect(early).toMatchObject({ status: "PENDING", verifiedAt: null });
    expect(early.lastCheck).toContain("found nothing yet (published, still propagating)");
    expect(await deploys(web.id)).toHaveLength(1);

    await emu.control("POST", "/time", { advanceMs: 61_000 });
    const active = await api.post<any>(`/v1/custom-domains/${d.id}/verify`);
    expect(active.status).toBe("ACTIVE");
    expect(active.verifiedAt).toBeTruthy();
    const after = await deploys(web.id);
    expect(after).toHaveLength(2);
    expect(after[0].trigger).toBe("SYSTEM");
    // a second verify does not redeploy again
    await api.post(`/v1/custom-domains/${d.id}/verify`);
    expect(await deploys(web.id)).toHaveLength(2);

    await api.delete(`/v1/custom-domains/${d.id}`);
    expect(await deploys(web.id)).toHaveLength(3);
    expect(await api.list(`/v1/services/${web.id}/custom-domains`)).toEqual([]);
    expect((await failure(api.delete(`/v1/custom-domains/${d.id}`))).status).toBe(404);

    await api.create(`/v1/services/${web.id}/custom-domains`, { domain: "other.prop.test" });
    await api.delete(`/v1/services/${web.id}`);
    const state = await emu.control("GET", "/state");
    expect(state.counts.customDomains ?? 0).toBe(0);
  });

  test("scopes: reading needs READ + PLATFORM_API, changing needs WRITE + PLATFORM_API", async () => {
    const { api, svcs } = await setup();
    const d = await api.create<any>(`/v1/services/${svcs[0].id}/custom-domains`, { domain: "scoped.example.org" });
    const ro = emu.client(emu.keys.readPlatform);
    expect(await ro.list(`/v1/services/${svcs[0].id}/custom-domains`)).toHaveLength(1);
    expect((await failure(ro.post(`/v1/custom-domains/${d.id}/verify`))).status).toBe(403);
    expect((await failure(ro.delete(`/v1/custom-domains/${d.id}`))).status).toBe(403);
    expect((await failure(emu.client(emu.keys.deploysOnly).list(`/v1/services/${svcs[0].id}/custom-domains`))).status).toBe(403);
  });
});

describe("previews", () => {
  test("enabled on the service; a pull request opens one (CREATING -> ACTIVE); list, get, delete closes and tears down", async () => {
    emu.emu.settings.speed = 1;
    const { api, project, svcs } = await setup();
    const web = svcs[0];
    expect((await api.get<any>(`/v1/services/${web.id}`)).previewsEnabled).toBe(false);
    const refused = await fetch(`${emu.baseUrl}/_emulator/previews`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ serviceId: web.id, prNumber: 7, headRef: "feature/x" }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("not enabled");

    await api.put(`/v1/services/${web.id}/previews-enabled`, { enabled: true });
    expect((await api.get<any>(`/v1/services/${web.id}`)).previewsEnabled).toBe(true);
    expect((await failure(api.put(`/v1/services/${web.id}/previews-enabled`, { enabled: "yes" }))).status).toBe(400);

    const opened = await emu.control("POST", "/previews", { serviceId: web.id, prNumber: 7, headRef: "feature/x", title: "Add x" });
    expect(opened).toMatchObject({ projectId: project.id, sourceServiceId: web.id, prNumber: 7, headRef: "feature/x", title: "Add x", status: "CREATING" });
    const env = await api.get<any>(`/v1/environments/${opened.environmentId}`);
    expect(env).toMatchObject({ isPreview: true, projectId: project.id });
    await emu.control("POST", "/time", { advanceMs: 60_000 });
    const active = await api.get<any>(`/v1/previews/${opened.id}`);
    expect(active).toMatchObject({ status: "ACTIVE", url: expect.stringMatching(/^https:\/\//), lastDeploymentId: expect.any(String) });

    await emu.control("POST", "/previews", { serviceId: web.id, prNumber: 8, headRef: "feature/y" });
    const page1 = await api.get<any>(`/v1/services/${web.id}/previews`, { query: { limit: 1 } });
    expect(page1.data).toHaveLength(1);
    expect(page1.nextCursor).toBeTruthy();
    expect((await api.list<any>(`/v1/services/${web.id}/previews`)).map((p) => p.prNumber).sort()).toEqual([7, 8]);

    const closed = (await api.request<any>("DELETE", `/v1/previews/${opened.id}`)).data;
    expect(closed).toMatchObject({ id: opened.id, status: "CLOSED" });
    expect((await failure(api.get(`/v1/environments/${opened.environmentId}`))).status).toBe(404);
    expect((await api.get<any>(`/v1/previews/${opened.id}`)).status).toBe("CLOSED");

    // turning previews off closes the open ones
    await api.put(`/v1/services/${web.id}/previews-enabled`, { enabled: false });
    expect((await api.list<any>(`/v1/services/${web.id}/previews`)).map((p) => p.status)).toEqual(["CLOSED", "CLOSED"]);
    expect((await failure(emu.client(emu.keys.otherWorkspace).get(`/v1/previews/${opened.id}`))).status).toBe(404);
    expect((await failure(emu.client(emu.keys.readPlatform).delete(`/v1/previews/${opened.id}`))).status).toBe(403);

    await api.delete(`/v1/projects/${project.id}`);
    expect(await emu.leftovers()).toEqual({});
  });

  test("a preview whose deploy fails is FAILED with the deploy's error; one without a source copy is ACTIVE on the clock", async () => {
    emu.emu.settings.speed = 1;
    const { api, env } = await setup();
    const broken = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "broken", type: "WEB", image: "nginx:does-not-exist" });
    await api.put(`/v1/services/${broken.id}/previews-enabled`, { enabled: true });
    const p = await emu.control("POST", "/previews", { serviceId: broken.id, prNumber: 3, headRef: "try" });
    expect(p.status).toBe("CREATING");
    const again = await fetch(`${emu.baseUrl}/_emulator/previews`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ serviceId: broken.id, prNumber: 3, headRef: "try" }),
    });
    expect(again.status).toBe(409);
    await emu.control("POST", "/time", { advanceMs: 60_000 });
    const failed = await api.get<any>(`/v1/previews/${p.id}`);
    expect(failed).toMatchObject({ status: "FAILED", url: null });
    expect(failed.error).toContain("could not be pulled");

    const db = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "db", type: "POSTGRES" });
    await api.put(`/v1/services/${db.id}/previews-enabled`, { enabled: true });
    const plain = await emu.control("POST", "/previews", { serviceId: db.id, prNumber: 4, headRef: "data" });
    expect(plain).toMatchObject({ status: "CREATING", previewWebServiceId: null, environmentId: expect.any(String) });
    await emu.control("POST", "/time", { advanceMs: 5_000 });
    expect((await api.get<any>(`/v1/previews/${plain.id}`)).status).toBe("ACTIVE");
  });
});
