// The SDK's functions (data sources), called as a program calls them. Outside a stack they read
// CLOUDPLATFORM_* from the environment, like the provider.
import * as pulumi from "@pulumi/pulumi";
import * as sdk from "../../sdk";
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

test("getRegions and getPricing return the catalogue in the schema's shape", async () => {
  const { regions } = await sdk.getRegions();
  expect(regions.map((r) => r.region)).toContain("af-west-1");
  expect(regions.find((r) => r.isDefault)).toMatchObject({ region: "af-west-1", freeTier: true });
  const pricing = await sdk.getPricing();
  expect(pricing.currency).toBeTruthy();
  expect(pricing.serviceTiers.map((t) => t.tier)).toEqual(expect.arrayContaining(["FREE", "STARTER", "STANDARD", "PRO"]));
  expect(Object.values(pricing.unitRates).every((n) => typeof n === "number")).toBe(true);
});

test("getService, getDnsZone and getMailDomain find what the API holds, and say clearly when nothing is there", async () => {
  const api = emu.client();
  const ws = emu.workspaceId;
  const project = await api.create<any>(`/v1/workspaces/${ws}/projects`, { name: "fn" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  const svc = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
  expect(await sdk.getService({ serviceId: svc.id })).toMatchObject({ id: svc.id, name: "web", type: "WEB", environmentId: env.id });
  await expect(sdk.getService({ serviceId: "00000000-0000-4000-8000-000000000000" })).rejects.toThrow(/404/);

  const zone = await api.create<any>(`/v1/workspaces/${ws}/dns-zones`, { name: "functions.test" });
  expect(await sdk.getDnsZone({ name: "FUNCTIONS.test." })).toMatchObject({ id: zone.id, name: "functions.test", published: false });
  await expect(sdk.getDnsZone({ name: "nowhere.test" })).rejects.toThrow(/no DNS zone named nowhere.test/);

  const added = await api.create<any>(`/v1/workspaces/${ws}/mail/domains`, { name: "mail.functions.test" });
  const domainId = added.domain?.id ?? added.id;
  const byName = await sdk.getMailDomain({ name: "mail.functions.test" });
  expect(byName).toMatchObject({ id: domainId, status: "PENDING" });
  expect(byName.records.map((r) => r.type)).toEqual(expect.arrayContaining(["TXT", "MX"]));
  expect((await sdk.getMailDomain({ domainId })).id).toBe(domainId);
  await expect(sdk.getMailDomain({ name: "mail.nowhere.test" })).rejects.toThrow(/no sending domain named mail.nowhere.test/);
});

test("getMailLimits reports the static limits, the key's send rate and each domain's daily quota", async () => {
  const api = emu.client();
  const added = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/mail/domains`, { name: "limits.functions.test" });
  for (const r of added.records) await emu.control("POST", "/dns/records", { name: r.fqdn, type: r.type, value: r.value, priority: r.priority ?? undefined });
  expect((await api.post<any>(`/v1/domains/${added.domain.id}/verify`)).domain.status).toBe("VERIFIED");
  await api.post("/v1/emails", { from: "app@limits.functions.test", to: ["a@example.test", "b@example.test"], subject: "Hi", text: "Hello" });

  const limits = await sdk.getMailLimits();
  expect(limits.sandbox).toBe(false);
  expect(limits.limits).toEqual({
    recipientsPerMessage: 50, messageSizeBytes: 10 * 1024 * 1024, headersPerMessage: 25, tagsPerMessage: 10, tagKeyMaxLength: 64, tagValueMaxLength: 256, messagesPerBatch: 100, pageSizeMax: 100,
  });
  expect(limits.rateLimit).toEqual({ requestsPerMinute: 3000, remaining: 2999 });
  expect(limits.domains.find((d) => d.name === "limits.functions.test")).toEqual({
    id: added.domain.id, name: "limits.functions.test", status: "VERIFIED", dailyQuota: 200, sentToday: 2, remainingToday: 198, maxDailyQuota: 50_000, quotaResetsAt: expect.any(String),
  });
  expect(limits.domains.find((d) => d.name === "mail.functions.test")).toMatchObject({ status: "PENDING", dailyQuota: 0 });
});

test("getServiceConnection returns a database's address and password; its Output form is secret", async () => {
  const api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "conn" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  const db = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "db", type: "POSTGRES", dbName: "shop", dbPassword: "a-long-db-password" });
  const web = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
  const conn = await sdk.getServiceConnection({ serviceId: db.id });
  expect(conn).toEqual({
    serviceId: db.id, scheme: "postgresql", host: "127.0.0.1", port: expect.any(Number), database: "shop", user: "app",
    password: "a-long-db-password", url: `postgresql://app:a-long-db-password@127.0.0.1:${conn.port}/shop`, externalUrl: null,
  });
  const out = sdk.getServiceConnectionOutput({ serviceId: db.id });
  expect(await pulumi.isSecret(out)).toBe(true);
  await expect(sdk.getServiceConnection({ serviceId: web.id })).rejects.toThrow(/404/);

  await api.delete(`/v1/projects/${project.id}`);
});

test("getProject and getEnvironment read one by id, and say clearly when it is not there", async () => {
  const api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "by-id", description: "d" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  expect(await sdk.getProject({ projectId: project.id })).toMatchObject({ id: project.id, name: "by-id", description: "d", workspaceId: emu.workspaceId });
  expect(await sdk.getEnvironment({ environmentId: env.id })).toMatchObject({ id: env.id, projectId: project.id, name: "prod", kind: "PROD" });
  const missing = "00000000-0000-4000-8000-000000000000";
  await expect(sdk.getProject({ projectId: missing })).rejects.toThrow(`getProject: no project ${missing}`);
  await expect(sdk.getEnvironment({ environmentId: missing })).rejects.toThrow(`getEnvironment: no environment ${missing}`);
});
