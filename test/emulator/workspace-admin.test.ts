// The rest of §4.10 through the project's client: members, invites, roles and key hints; balance,
// invoices and usage; metrics and service/project usage; git. Shapes, pages, search, scopes on
// every route family, and another workspace's objects answering 404.
import { BadRequestError, NotFoundError, PermissionDeniedError } from "../../provider/client";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
});
afterAll(async () => emu?.close());

const ws = () => `/v1/workspaces/${emu.workspaceId}`;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

test("api-keys: hints only, never a key", async () => {
  const keys = await emu.client().list<any>(`${ws()}/api-keys`);
  const full = keys.find((k) => k.name === "emulator full access");
  expect(full).toEqual({
    id: expect.any(String), name: "emulator full access", scopes: ["READ", "WRITE", "EMAIL_SEND", "DEPLOYS", "DATABASES", "PLATFORM_API"],
    teamId: emu.workspaceId, tokenHint: emu.apiKey.slice(0, 13), tokenTail: emu.apiKey.slice(-4),
    createdAt: ISO, expiresAt: null, lastUsedAt: ISO, revokedAt: null, updatedAt: ISO,
  });
  // The owner's account-wide key and platform token are listed (teamId null); mail keys and other workspaces' keys are not.
  expect(keys.filter((k) => k.teamId === null).map((k) => k.name).sort()).toEqual(["account key (all workspaces)", "platform token"]);
  expect(keys.map((k) => k.name)).not.toContain("mail key");
  expect(keys.map((k) => k.name)).not.toContain("another workspace's key");
  const text = JSON.stringify(keys);
  for (const key of Object.values(emu.keys)) expect(text).not.toContain(key);
  const first = await emu.client().get<any>(`${ws()}/api-keys`, { query: { limit: 2 } });
  expect(first.data).toHaveLength(2);
  const next = await emu.client().get<any>(`${ws()}/api-keys`, { query: { cursor: first.nextCursor } });
  expect(next.data[0].id).not.toBe(first.data[0].id);
});

test("members, invites and roles with member counts", async () => {
  expect((await emu.client().list<any>(`${ws()}/members`)).map((m) => m.user.email).sort()).toEqual(["dev@example.test", "owner@example.test", "viewer@example.test"]);
  const invites = await emu.client().list<any>(`${ws()}/invites`);
  expect(invites.map((i) => [i.email, i.role, i.roleName, i.expired])).toEqual([
    ["new.hire@example.test", "MEMBER", "Member", false],
    ["ops.lead@example.test", "ADMIN", "Admin", false],
    ["auditor@example.test", "MEMBER", "Read only", true],
  ]);
  expect(invites[0]).toEqual({
    id: expect.any(String), teamId: emu.workspaceId, email: "new.hire@example.test", role: "MEMBER", roleName: "Member", teamRoleId: null,
    projectIds: null, invitedByName: "Ada", expired: false, expiresAt: ISO, acceptedAt: null, createdAt: ISO, updatedAt: ISO,
  });
  // An invite lapses on the emulator clock.
  await emu.control("POST", "/time", { advanceMs: 7 * 86_400_000 });
  expect((await emu.client().list<any>(`${ws()}/invites`)).map((i) => i.expired)).toEqual([true, true, true]);
  await emu.control("POST", "/time", { reset: true });

  const roles = await emu.client().list<any>(`${ws()}/roles`);
  expect(roles.map((r) => [r.role.name, r.memberCount])).toEqual([["Owner", 1], ["Admin", 0], ["Member", 1], ["Read only", 1]]);
  expect(roles[3]).toEqual({
    role: {
      id: "role_read_only", teamId: emu.workspaceId, name: "Read only", description: expect.any(String), builtin: true, editable: false,
      readOnly: true, allProjects: true, projectIds: [], permissions: [], createdAt: ISO, updatedAt: ISO,
    },
    memberCount: 1,
    scopedProjectIds: [],
  });
  const viewer = (await emu.client().list<any>(`${ws()}/members`)).find((m) => m.user.email === "viewer@example.test");
  expect(viewer.teamRoleId).toBe(roles[3].role.id);
});

test("balance, invoices newest first, one invoice, and this month's usage follow the services", async () => {
  const api = emu.client();
  const before = await api.get<any>(`${ws()}/balance`);
  expect(before).toEqual({ balanceMinor: 2_500_000, currency: "NGN", low: false, lowBalanceThresholdMinor: 200_000 });
  const invoices = await api.list<any>(`${ws()}/invoices`);
  expect(invoices.map((i) => i.status)).toEqual(["OPEN", "PAID", "PAID"]);
  expect(invoices.map((i) => i.periodStart)).toEqual([...invoices.map((i) => i.periodStart)].sort().reverse());
  for (const i of invoices) {
    expect(i.lineItems.reduce((a: number, l: any) => a + l.amountKobo, 0)).toBe(i.usageKobo);
    expect(i.totalKobo).toBe(i.usageKobo - i.creditKobo);
  }
  expect(await api.get(`/v1/invoices/${invoices[1].id}`)).toEqual(invoices[1]);
  expect(await failure(emu.client(emu.keys.sendOnly).get(`/v1/invoices/${invoices[1].id}`))).toBeInstanceOf(PermissionDeniedError);
  const theirs = await emu.client(emu.keys.otherWorkspace).list<any>(`/v1/workspaces/${emu.otherWorkspaceId}/invoices`);
  expect(await failure(api.get(`/v1/invoices/${theirs[0].id}`))).toBeInstanceOf(NotFoundError);
  const page = await api.get<any>(`${ws()}/invoices`, { query: { limit: 2 } });
  expect([page.data.length, typeof page.nextCursor]).toEqual([2, "string"]);

  // Mid-month, so ten hours stay inside one month.
  await emu.control("POST", "/time", { now: "2026-12-10T00:00:00.000Z" });
  const project = await api.create<any>(`${ws()}/projects`, { name: "billing" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  await api.create(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1", tier: "STARTER" });
  await emu.control("POST", "/time", { advanceMs: 10 * 3_600_000 });
  const usage = await api.get<any>(`${ws()}/usage`);
  expect(usage.computeHours).toBeCloseTo(10, 1);
  expect(usage).toMatchObject({ computeAllowanceHours: 750, databaseBytes: 0, storageBytes: 0, bandwidthBytes: expect.any(Number) });
  expect((await api.get<any>(`${ws()}/balance`)).balanceMinor).toBe(2_500_000 - Math.round((500_000 / 730) * 10));
  await emu.control("POST", "/time", { reset: true });
  await api.delete(`/v1/projects/${project.id}`);
});

test("metrics: a deterministic series of the requested range; service and project usage", async () => {
  const api = emu.client();
  await emu.control("POST", "/time", { now: "2026-12-10T12:00:00.000Z" });
  const project = await api.create<any>(`${ws()}/projects`, { name: "metrics" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  const web = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1" });
  const db = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "db", type: "POSTGRES" });
  // Just past a minute's start, so no bucket closes while the test compares series.
  await emu.control("POST", "/time", { now: "2026-12-13T12:00:01.000Z" });

  const hour = await api.get<any>(`/v1/services/${web.id}/metrics`);
  expect(hour).toMatchObject({ serviceId: web.id, type: "WEB", range: "LAST_HOUR", bucketSeconds: 60 });
  expect(hour.points).toHaveLength(60);
  expect(await api.get(`/v1/services/${web.id}/metrics`)).toEqual(hour);
  const p = hour.points[59];
  expect(p.cpuPercent).toBeGreaterThan(0);
  expect(p.memoryBytes).toBeLessThan(p.memoryLimitBytes);
  expect([p.cacheHitRatio, p.connections, p.opsPerSec, p.storageBytes]).toEqual([null, null, null, null]);
  const steps = hour.points.slice(1).map((x: any, i: number) => Date.parse(x.t) - Date.parse(hour.points[i].t));
  expect(new Set(steps)).toEqual(new Set([60_000]));
  for (const [range, bucketSeconds, count] of [["LAST_30_MIN", 60, 30], ["LAST_6H", 300, 72], ["LAST_24H", 900, 96]] as const) {
    const s = await api.get<any>(`/v1/services/${web.id}/metrics`, { query: { range } });
    expect([s.bucketSeconds, s.points.length]).toEqual([bucketSeconds, count]);
  }
  // The service is three days old: a week's series starts when it did.
  const week = await api.get<any>(`/v1/services/${db.id}/metrics`, { query: { range: "LAST_7D" } });
  expect(week.bucketSeconds).toBe(3600);
  expect(week.points.length).toBeGreaterThanOrEqual(71);
  expect(week.points.length).toBeLessThanOrEqual(73);
  expect(week.points[0]).toMatchObject({ cacheHitRatio: expect.any(Number), connections: expect.any(Number), storageBytes: expect.any(Number) });
  const bad = await failure(api.get(`/v1/services/${web.id}/metrics`, { query: { range: "LAST_YEAR" } }));
  expect(bad).toBeInstanceOf(BadRequestError);
  expect(bad.message).toMatch(/range: must be one of LAST_30_MIN, LAST_HOUR/);

  const usage = await api.get<any>(`/v1/services/${db.id}/usage`);
  expect(usage).toMatchObject({ serviceId: db.id, type: "POSTGRES", hasData: true, sampledAt: ISO, database: { engine: "POSTGRES", itemLabel: "rows", storageBytes: expect.any(Number) } });
  expect((await api.get<any>(`/v1/services/${web.id}/usage`)).database).toBeNull();
  const proj = await api.get<any>(`/v1/projects/${project.id}/usage`);
  expect(proj).toMatchObject({ projectId: project.id, serviceCount: 2 });
  expect(Math.abs(proj.totalStorageBytes - usage.database.storageBytes)).toBeLessThan(1024 * 1024); // a minute may have turned
  expect(proj.services.map((s: any) => s.serviceId).sort()).toEqual([web.id, db.id].sort());

  for (const path of [`/v1/services/${web.id}/metrics`, `/v1/services/${web.id}/usage`, `/v1/projects/${project.id}/usage`]) {
    expect(await failure(emu.client(emu.keys.otherWorkspace).get(path))).toBeInstanceOf(NotFoundError);
    expect(await failure(emu.client(emu.keys.sendOnly).get(path))).toBeInstanceOf(PermissionDeniedError);
    expect(await emu.client(emu.keys.readOnly).get(path)).toBeDefined();
  }
  await emu.control("POST", "/time", { reset: true });
  await api.delete(`/v1/projects/${project.id}`);
});

test("git: install URL, repositories with search and pages, branches of one repository", async () => {
  const api = emu.client();
  expect(await api.get(`${ws()}/git/install-url`)).toEqual({ url: expect.stringMatching(new RegExp(`^https://.+/installations/new\\?state=${emu.workspaceId}$`)) });
  const repos = await api.list<any>(`${ws()}/git/repositories`);
  expect(repos.map((r) => r.fullName)).toEqual(["acme/storefront", "acme/api", "acme/marketing-site", "acme/infra", "acme/docs"]);
  expect(repos[0]).toEqual({ fullName: "acme/storefront", private: true, defaultBranch: "main", installationId: expect.stringMatching(/^\d+$/) });
  expect((await api.list<any>(`${ws()}/git/repositories`, { query: { search: "SITE" } })).map((r) => r.fullName)).toEqual(["acme/marketing-site"]);
  const first = await api.get<any>(`${ws()}/git/repositories`, { query: { limit: 2, search: "a" } });
  expect(first.data).toHaveLength(2);

  const branches = await api.list<any>(`${ws()}/git/branches`, { query: { repo: "acme/storefront" } });
  expect(branches).toEqual([{ name: "main" }, { name: "develop" }, { name: "feature/checkout-v2" }, { name: "release/2026.11" }]);
  expect(await api.list(`${ws()}/git/branches`, { query: { repo: "acme/storefront", search: "feature" } })).toEqual([{ name: "feature/checkout-v2" }]);
  const noRepo = await failure(api.get(`${ws()}/git/branches`));
  expect(noRepo).toBeInstanceOf(BadRequestError);
  expect(noRepo.message).toMatch(/400 Bad Request: repo: is required/);
  expect(await failure(api.get(`${ws()}/git/branches`, { query: { repo: "globex/api" } }))).toBeInstanceOf(NotFoundError);
  // Another workspace's app sees its own organisation.
  const theirs = await emu.client(emu.keys.otherWorkspace).list<any>(`/v1/workspaces/${emu.otherWorkspaceId}/git/repositories`);
  expect(theirs[0].fullName).toBe("globex/storefront");
});

test("scopes: READ + PLATFORM_API on every family; a read-only member reads; another workspace is 404", async () => {
  const families = ["", "api-keys", "invites", "members", "roles", "balance", "invoices", "usage", "git/install-url", "git/repositories", "git/branches?repo=acme/api"];
  for (const f of families) {
    const path = f ? `${ws()}/${f}` : ws();
    const noPlatform = await failure(emu.client(emu.keys.sendOnly).get(path));
    expect(noPlatform).toBeInstanceOf(PermissionDeniedError);
    expect(noPlatform.message).toContain("PLATFORM_API");
    expect(await emu.client(emu.keys.readOnly).get(path)).toBeDefined();
    expect(await emu.client(emu.keys.readPlatform).get(path)).toBeDefined();
    expect(await failure(emu.client(emu.keys.otherWorkspace).get(path))).toBeInstanceOf(NotFoundError);
  }
  expect(await failure(emu.client(emu.keys.mail).get(`${ws()}/invoices`))).toBeInstanceOf(PermissionDeniedError);
  expect(await emu.leftovers()).toEqual({});
});
