// Services, env vars, secret files, deploys and cron in the emulator, through the real client.
import { emulator, type TestEmulator } from "../support/emulator";
import type { CloudPlatformClient } from "../../provider/client";

let emu: TestEmulator;
let api: CloudPlatformClient;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 1 } });
  api = emu.client();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const advance = (ms: number) => emu.control("POST", "/time", { advanceMs: ms });
/** Enough simulated time for any deploy at speed 1 to finish. */
const SETTLE = 60_000;

async function environment(name = "production"): Promise<string> {
  const p = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "shop" });
  const env = await api.create<any>(`/v1/projects/${p.id}/environments`, { name });
  return env.id;
}

const web = (extra: Record<string, unknown> = {}) => ({ name: "web", type: "WEB", image: "nginx:1.27", ...extra });
const latestDeploy = async (serviceId: string) => (await api.get<any>(`/v1/services/${serviceId}/deploys`)).data[0];

test("a web service provisions, and its first deploy goes QUEUED -> BUILDING -> DEPLOYING -> RUNNING with the env vars in it", async () => {
  const envId = await environment();
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web({
    envVars: [{ key: "API_TOKEN", value: "s3cret-token-value", secret: true }, { key: "MODE", value: "prod" }],
    secretFiles: [{ path: "config/app.json", content: "{\"k\":1}" }],
  }));
  expect(svc).toMatchObject({ status: "PROVISIONING", url: null, type: "WEB", tier: "STARTER", port: 8080, suspension: "NONE" });
  expect(svc.region).toEqual({ key: "af-west-1", label: "Lagos" });
  expect(svc.source).toMatchObject({ type: "CONTAINER_IMAGE", image: "nginx:1.27" });

  const first = await latestDeploy(svc.id);
  expect(first).toMatchObject({ status: "QUEUED", trigger: "FIRST_DEPLOY" });
  await expect(api.get(`/v1/deploys/${first.id}/logs`)).rejects.toMatchObject({ status: 409 });
  await advance(3_000);
  expect((await api.get<any>(`/v1/deploys/${first.id}`)).status).toBe("BUILDING");
  await advance(5_000);
  expect((await api.get<any>(`/v1/deploys/${first.id}`)).status).toBe("DEPLOYING");
  await advance(10_000);
  const done = await api.get<any>(`/v1/deploys/${first.id}`);
  expect(done).toMatchObject({ status: "RUNNING", error: null, errorCode: null });
  expect(done.durationMs).toBeGreaterThan(0);
  const live = await api.get<any>(`/v1/services/${svc.id}`);
  expect(live).toMatchObject({ status: "ACTIVE", health: "HEALTHY" });
  expect(live.url).toMatch(/^https:\/\/web-.*\.cloudplatform\.app$/);

  // The first deploy saw the variables and the file (keys only, never values, in the logs).
  const logs = (await api.get<any>(`/v1/deploys/${first.id}/logs`, { query: { limit: 100 } })).data.map((l: any) => l.line);
  expect(logs.join("\n")).toContain("API_TOKEN, MODE");
  expect(logs.join("\n")).toContain("config/app.json");
  expect(logs.join("\n")).not.toContain("s3cret-token-value");
  expect(logs[0]).toContain("queued");

  // A newer deploy that goes live marks the old one REPLACED.
  const second = await api.create<any>(`/v1/services/${svc.id}/deploys`, undefined);
  expect(second.status).toBe("QUEUED");
  await advance(SETTLE);
  expect((await api.get<any>(`/v1/deploys/${first.id}`)).status).toBe("REPLACED");
  expect((await api.get<any>(`/v1/deploys/${second.id}`)).status).toBe("RUNNING");
});

test("documented failure inputs fail the deploy with an errorCode, an error and logs that explain it", async () => {
  const envId = await environment();
  const cases: [Record<string, unknown>, string][] = [
    [{ name: "a", image: "ghcr.io/acme/does-not-exist:1" }, "IMAGE_REJECTED"],
    [{ name: "b", image: "nginx:missing" }, "IMAGE_REJECTED"],
    [{ name: "c", imageCommand: "sh -c 'exit 1'" }, "CRASH"],
    [{ name: "d", port: 1 }, "PORT_NOT_LISTENING"],
    [{ name: "e", healthCheckPath: "/unhealthy" }, "HEALTH_TIMEOUT"],
    [{ name: "f", image: undefined, gitUrl: "https://github.com/acme/node-api", buildCommand: "npm run build && exit 2" }, "BUILD_FAILED"],
  ];
  const ids: string[] = [];
  for (const [body] of cases) ids.push((await api.create<any>(`/v1/environments/${envId}/services`, web(body))).id);
  await advance(SETTLE);
  for (const [i, [, code]] of cases.entries()) {
    const d = await latestDeploy(ids[i]);
    expect(d).toMatchObject({ status: "FAILED", errorCode: code });
    expect(d.error).toEqual(expect.any(String));
    const lines = (await api.get<any>(`/v1/deploys/${d.id}/logs`)).data;
    expect(lines.at(-1)).toMatchObject({ level: "ERROR", line: expect.stringContaining(code) });
  }
  expect(await api.get<any>(`/v1/services/${ids[2]}`)).toMatchObject({ status: "ERROR", health: "CRASH_LOOPING" });
});

test("cancel works only before a deploy goes live; rollback only to one that went live, and replays it", async () => {
  const envId = await environment();
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web());
  const first = await latestDeploy(svc.id);
  await advance(SETTLE);
  await expect(api.post(`/v1/deploys/${first.id}/cancel`)).rejects.toMatchObject({ status: 409 });

  const second = await api.create<any>(`/v1/services/${svc.id}/deploys`, undefined);
  const cancelled = await api.post<any>(`/v1/deploys/${second.id}/cancel`);
  expect(cancelled.status).toBe("CANCELLED");
  await advance(SETTLE);
  expect((await api.get<any>(`/v1/deploys/${first.id}`)).status).toBe("RUNNING");

  await expect(api.create(`/v1/deploys/${cancelled.id}/rollback`, undefined)).rejects.toMatchObject({ status: 409 });
  await api.patch(`/v1/services/${svc.id}`, { source: { image: "nginx:1.28", redeploy: true } });
  await advance(SETTLE);
  const third = await latestDeploy(svc.id);
  expect(third.status).toBe("RUNNING");
  expect((await api.get<any>(`/v1/deploys/${first.id}`)).status).toBe("REPLACED");

  const rb = await api.create<any>(`/v1/deploys/${first.id}/rollback`, undefined);
  expect(rb).toMatchObject({ trigger: "ROLLBACK", status: "QUEUED" });
  await advance(SETTLE);
  expect((await api.get<any>(`/v1/deploys/${rb.id}`)).status).toBe("RUNNING");
  expect((await api.get<any>(`/v1/deploys/${third.id}`)).status).toBe("REPLACED");
  const logs = (await api.get<any>(`/v1/deploys/${rb.id}/logs`)).data.map((l: any) => l.line);
  expect(logs.join("\n")).toContain(`Reusing the image built for deploy ${first.id}`);
});

test("deploy routes need the DEPLOYS area; service routes need PLATFORM_API; delete needs ADMIN", async () => {
  const envId = await environment();
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web());
  const platformOnly = emu.client(emu.keys.platformOnly);
  await expect(platformOnly.get(`/v1/services/${svc.id}/deploys`)).rejects.toMatchObject({ status: 403, message: expect.stringContaining("DEPLOYS") });
  await expect(platformOnly.create(`/v1/services/${svc.id}/deploys`, undefined)).rejects.toMatchObject({ status: 403 });
  const deploysOnly = emu.client(emu.keys.deploysOnly);
  expect((await deploysOnly.get<any>(`/v1/services/${svc.id}/deploys`)).data).toHaveLength(1);
  await expect(deploysOnly.get(`/v1/services/${svc.id}`)).rejects.toMatchObject({ status: 403 });
  await expect(emu.client(emu.keys.member).delete(`/v1/services/${svc.id}`)).rejects.toMatchObject({ status: 403 });
  await expect(emu.client(emu.keys.otherWorkspace).get(`/v1/services/${svc.id}`)).rejects.toMatchObject({ status: 404 });
  await api.delete(`/v1/services/${svc.id}`);
  await expect(api.get(`/v1/services/${svc.id}`)).rejects.toMatchObject({ status: 404 });
});

test("env vars: upsert by key keeps unlisted keys, reports needsRedeploy and warnings; secrets blank for a read-only role", async () => {
  const envId = await environment("staging");
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web({ envVars: [{ key: "A", value: "1" }, { key: "TOKEN", value: "t0ken-value-1", secret: true }] }));
  const change = await api.patch<any>(`/v1/services/${svc.id}/env-vars`, { envVars: [{ key: "B", value: "2" }, { key: "lower", value: "x", scope: "PROD" }] });
  expect(change.needsRedeploy).toBe(true);
  expect(change.envVars.map((v: any) => v.key)).toEqual(["A", "B", "TOKEN", "lower"]);
  expect(change.warnings.join("\n")).toMatch(/lower: keys are conventionally upper case/);
  expect(change.warnings.join("\n")).toMatch(/scope PROD does not apply/);
  const same = await api.patch<any>(`/v1/services/${svc.id}/env-vars`, { envVars: [{ key: "B", value: "2" }] });
  expect(same.needsRedeploy).toBe(false);

  const ro = emu.client(emu.keys.readOnly);
  const seen = (await ro.get<any>(`/v1/services/${svc.id}/env-vars`)).data;
  expect(seen.find((v: any) => v.key === "TOKEN")).toMatchObject({ value: "", secret: true });
  expect(seen.find((v: any) => v.key === "A")).toMatchObject({ value: "1" });
  await expect(ro.patch(`/v1/services/${svc.id}/env-vars`, { envVars: [{ key: "C", value: "3" }] })).rejects.toMatchObject({ status: 403 });

  const del = await api.delete(`/v1/services/${svc.id}/env-vars/B`);
  expect(del).toBeUndefined();
  await expect(api.delete(`/v1/services/${svc.id}/env-vars/B`)).rejects.toMatchObject({ status: 404 });
  await expect(api.patch(`/v1/services/${svc.id}/env-vars`, { envVars: [{ key: "1BAD", value: "x" }] })).rejects.toMatchObject({ status: 400 });

  // secret files: PUT replaces one, DELETE by path; contents blank for a read-only role
  const put = await api.put<any>(`/v1/services/${svc.id}/secret-files`, { path: "/etc/secrets/key.pem", content: "-----BEGIN KEY-----" });
  expect(put).toMatchObject({ needsRedeploy: true, secretFiles: [{ path: "/etc/secrets/key.pem", content: "-----BEGIN KEY-----" }] });
  expect((await ro.get<any>(`/v1/services/${svc.id}/secret-files`)).data).toEqual([{ path: "/etc/secrets/key.pem", content: "" }]);
  await api.delete(`/v1/services/${svc.id}/secret-files`, { query: { path: "/etc/secrets/key.pem" } });
  expect((await api.get<any>(`/v1/services/${svc.id}/secret-files`)).data).toEqual([]);
});

test("databases: connection after provisioning, linked into siblings (existing and later), read-only there", async () => {
  const envId = await environment();
  const before = await api.create<any>(`/v1/environments/${envId}/services`, web({ name: "before" }));
  const db = await api.create<any>(`/v1/environments/${envId}/services`, { name: "db", type: "POSTGRES", injectConnectionUrl: true, dbName: "shop" });
  expect(db.url).toBeNull();
  await expect(api.get(`/v1/services/${db.id}/connection`)).rejects.toMatchObject({ status: 404 });
  await expect(api.get(`/v1/services/${before.id}/connection`)).rejects.toMatchObject({ status: 404 });
  await advance(SETTLE);
  const conn = await api.get<any>(`/v1/services/${db.id}/connection`);
  // A POSTGRES service listens for real on loopback (test/emulator/postgres.test.ts connects to it).
  expect(conn).toMatchObject({ scheme: "postgresql", host: "127.0.0.1", port: expect.any(Number), database: "shop", username: "app", externalUrl: null });
  expect(conn.password.length).toBeGreaterThanOrEqual(16);
  expect(conn.url).toContain(conn.password);
  const ro = await emu.client(emu.keys.readOnly).get<any>(`/v1/services/${db.id}/connection`);
  expect(ro.password).toBe("");
  expect(ro.url).not.toContain(conn.password);

  const after = await api.create<any>(`/v1/environments/${envId}/services`, web({ name: "after" }));
  for (const s of [before, after]) {
    const vars = (await api.get<any>(`/v1/services/${s.id}/env-vars`)).data;
    expect(vars).toEqual([{ key: "DATABASE_URL", value: conn.url, scope: "ALL", secret: true, linked: true }]);
  }
  await expect(api.patch(`/v1/services/${after.id}/env-vars`, { envVars: [{ key: "DATABASE_URL", value: "x" }] }))
    .rejects.toMatchObject({ status: 409, message: expect.stringContaining("linked") });
  await expect(api.delete(`/v1/services/${after.id}/env-vars/DATABASE_URL`)).rejects.toMatchObject({ status: 409 });

  // Deleting the environment tears every service down.
  await api.delete(`/v1/environments/${envId}`);
  const left = await emu.leftovers();
  expect(left.services ?? 0).toBe(0);
  expect(left.serviceEnvVars ?? 0).toBe(0);
  expect(left.deploys ?? 0).toBe(0);
});

test("validation: unique names, type and tier enums, the free slot, regions, and source rules", async () => {
  const envId = await environment();
  const post = (body: Record<string, unknown>) => api.create<any>(`/v1/environments/${envId}/services`, body);
  await post(web({ tier: "FREE" }));
  await expect(post(web())).rejects.toMatchObject({ status: 409, message: expect.stringContaining("already has a service named 'web'") });
  await expect(post(web({ name: "w2", tier: "FREE" }))).rejects.toMatchObject({ status: 409, message: expect.stringContaining("free slot") });
  await expect(post(web({ name: "w3", type: "LAMBDA" }))).rejects.toMatchObject({ status: 400, messages: [expect.stringContaining("type")] });
  await expect(post(web({ name: "w4", tier: "HUGE" }))).rejects.toMatchObject({ status: 400 });
  await expect(post(web({ name: "w5", region: "mars-1" }))).rejects.toMatchObject({ status: 400, message: expect.stringContaining("unknown region") });
  await expect(post({ name: "w6", type: "WEB" })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("needs a source") });
  await expect(post(web({ name: "w7", dbName: "x" }))).rejects.toMatchObject({ status: 400, message: expect.stringContaining("database services only") });

  const found = await api.get<any>(`/v1/services`, { query: { search: "SHO" } });
  expect(found.data).toEqual([{ id: expect.any(String), name: "web", projectName: "shop", type: "WEB" }]);
  expect((await api.get<any>(`/v1/services`, { query: { search: "nothing" } })).data).toEqual([]);
  expect((await api.get<any>(`/v1/regions`)).data.map((r: any) => r.region)).toContain("af-west-1");
  expect((await api.get<any>(`/v1/pricing`)).serviceTiers.map((t: any) => t.tier)).toEqual(["FREE", "STARTER", "STANDARD", "PRO"]);
  expect(await api.get<any>(`/v1/build-detection`, { query: { gitUrl: "https://github.com/acme/does-not-exist" } })).toMatchObject({ runtime: null, buildCommand: null });
  expect(await api.get<any>(`/v1/build-detection`, { query: { repoFullName: "acme/express-api" } })).toMatchObject({ runtime: "node", framework: "express" });
  expect((await api.get<any>(`/v1/build-detection/apps`, { query: { repoFullName: "acme/monorepo" } })).apps).toHaveLength(2);
});

test("cron: schedules are validated five-field UTC expressions; settings, suspend/resume, scheduled and manual runs with logs", async () => {
  const envId = await environment();
  const post = (body: Record<string, unknown>) => api.create<any>(`/v1/environments/${envId}/services`, { name: "job", type: "CRON", image: "alpine:3", ...body });
  for (const bad of ["* * * *", "61 * * * *", "* 24 * * *", "@hourly", "*/0 * * * *", "5-1 * * * *"]) {
    await expect(post({ schedule: bad })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("schedule") });
  }
  await expect(post({})).rejects.toMatchObject({ status: 400 });
  // A fixed Saturday evening (UTC), whatever today is: the schedule skips Saturdays, then runs on Sunday.
  await emu.control("POST", "/time", { now: "2030-01-05T22:30:00Z" });
  const job = await post({ schedule: "*/10 * * * MON-FRI,SUN", command: "node report.js" });
  expect(job.cron).toEqual({ schedule: "*/10 * * * MON-FRI,SUN", command: "node report.js", suspended: false });
  await expect(api.create(`/v1/services/${job.id}/runs`, undefined)).rejects.toMatchObject({ status: 409, message: expect.stringContaining("deploy the job first") });

  await advance(SETTLE);
  const run = await api.create<any>(`/v1/services/${job.id}/runs`, undefined);
  expect(run).toMatchObject({ trigger: "MANUAL", status: "QUEUED", seq: expect.any(Number) });
  await advance(10_000);
  expect(await api.get<any>(`/v1/cron-runs/${run.id}`)).toMatchObject({ status: "SUCCEEDED", exitCode: 0 });
  const lines = (await api.get<any>(`/v1/cron-runs/${run.id}/logs`)).data.map((l: any) => l.line);
  expect(lines.join("\n")).toContain("node report.js");

  // An hour later, still Saturday: no scheduled run. An hour after that, Sunday 00:31: the runs at
  // 00:00, 00:10, 00:20 and 00:30. While suspended none are added.
  const scheduledRuns = async () => (await api.get<any>(`/v1/services/${job.id}/runs`, { query: { limit: 100 } })).data.filter((r: any) => r.trigger === "SCHEDULED");
  await advance(60 * 60_000);
  expect(await scheduledRuns()).toEqual([]);
  await advance(60 * 60_000);
  const scheduled = await scheduledRuns();
  expect(scheduled.map((r: any) => r.createdAt).sort()).toEqual(["00", "10", "20", "30"].map((m) => `2030-01-06T00:${m}:00.000Z`));
  const count = scheduled.length;
  expect(await api.post(`/v1/services/${job.id}/cron/suspend`)).toBeUndefined();
  expect((await api.get<any>(`/v1/services/${job.id}`)).cron.suspended).toBe(true);
  await advance(60 * 60_000);
  expect((await scheduledRuns()).length).toBe(count);
  await api.post(`/v1/services/${job.id}/cron/resume`);

  const settings = await api.patch<any>(`/v1/services/${job.id}/cron`, { schedule: "0 3 * * *", command: "exit 3" });
  expect(settings).toEqual({ serviceId: job.id, schedule: "0 3 * * *", command: "exit 3", suspended: false });
  await expect(api.patch(`/v1/services/${job.id}/cron`, { schedule: "0 3 * *" })).rejects.toMatchObject({ status: 400 });
  const failing = await api.create<any>(`/v1/services/${job.id}/runs`, undefined);
  await advance(10_000);
  expect(await api.get<any>(`/v1/cron-runs/${failing.id}`)).toMatchObject({ status: "FAILED", exitCode: 3 });
});

test("suspend and resume keep the URL; a suspended service refuses deploys", async () => {
  const envId = await environment();
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web());
  await advance(SETTLE);
  const url = (await api.get<any>(`/v1/services/${svc.id}`)).url;
  expect(await api.post<any>(`/v1/services/${svc.id}/suspend`)).toMatchObject({ suspension: "USER", health: "STOPPED", url });
  await expect(api.create(`/v1/services/${svc.id}/deploys`, undefined)).rejects.toMatchObject({ status: 409 });
  expect(await api.post<any>(`/v1/services/${svc.id}/resume`)).toMatchObject({ suspension: "NONE", health: "HEALTHY", url });
});

test("speed 0 makes every lifecycle instant: done by the first read after the create", async () => {
  emu.emu.settings.speed = 0;
  try {
    const envId = await environment();
    const svc = await api.create<any>(`/v1/environments/${envId}/services`, web());
    // The create itself answers as the platform would, PROVISIONING (test/emulator/fidelity.test.ts).
    expect(svc.status).toBe("PROVISIONING");
    expect((await api.get<any>(`/v1/services/${svc.id}`)).status).toBe("ACTIVE");
    expect((await latestDeploy(svc.id)).status).toBe("RUNNING");
  } finally {
    emu.emu.settings.speed = 1;
  }
});
