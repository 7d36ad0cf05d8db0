// Every route answers with the status and state the spec states, whatever --speed says: a route that
// accepts work (202, or a create that queues a deploy) answers with it in its first state, and at
// speed 0 the work moves on right after that response, so the next read sees it done.
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let api: ReturnType<TestEmulator["client"]>;
let envId: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "fidelity" });
  envId = (await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "dev" })).id;
});
afterAll(async () => emu?.close());
afterEach(() => {
  emu.emu.settings.speed = 0;
});

const NOT_STARTED = { status: "QUEUED", startedAt: null, finishedAt: null, durationMs: null, error: null, errorCode: null };
let n = 0;
const web = () => ({ name: `web-${++n}`, type: "WEB", image: "nginx:1.27" });

/** A reserved and uploaded one-page site; returns the upload id. */
async function uploadedPage(): Promise<string> {
  const page = Buffer.from("<h1>hello</h1>");
  const u = await api.create<any>("/v1/static-uploads", { filename: "index.html", contentType: "text/html", sizeBytes: page.length });
  const res = await fetch(u.url, { method: u.method, headers: Object.fromEntries(u.headers.map((h: any) => [h.name, h.value])), body: page });
  expect(res.status).toBe(200);
  return u.uploadId;
}

test("a service create answers PROVISIONING with its first deploy queued; the next read finds it ACTIVE and the deploy RUNNING", async () => {
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web());
  expect(svc).toMatchObject({ status: "PROVISIONING", url: null, health: "UNKNOWN", lastDeployedAt: null });
  const read = await api.get<any>(`/v1/services/${svc.id}`);
  expect(read).toMatchObject({ status: "ACTIVE", url: expect.stringMatching(/^https:\/\//), health: "HEALTHY", lastDeployedAt: expect.any(String) });
  expect((await api.list<any>(`/v1/services/${svc.id}/deploys`)).map((d) => [d.trigger, d.status])).toEqual([["FIRST_DEPLOY", "RUNNING"]]);
});

test("POST deploys and rollback answer 202 with a QUEUED deploy, which then runs; a replay gives the first response", async () => {
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web());
  const first = (await api.list<any>(`/v1/services/${svc.id}/deploys`))[0];
  const res = await api.request<any>("POST", `/v1/services/${svc.id}/deploys`, { idempotencyKey: "fidelity-deploy" });
  expect(res.status).toBe(202);
  expect(res.data).toMatchObject({ ...NOT_STARTED, serviceId: svc.id, trigger: "MANUAL" });
  expect(await api.get<any>(`/v1/deploys/${res.data.id}`)).toMatchObject({ status: "RUNNING", startedAt: expect.any(String), finishedAt: expect.any(String) });
  const replay = await api.request<any>("POST", `/v1/services/${svc.id}/deploys`, { idempotencyKey: "fidelity-deploy" });
  expect([replay.status, replay.data]).toEqual([202, res.data]);

  const rollback = await api.request<any>("POST", `/v1/deploys/${first.id}/rollback`);
  expect([rollback.status, rollback.data]).toEqual([202, expect.objectContaining({ ...NOT_STARTED, trigger: "ROLLBACK" })]);
  expect((await api.get<any>(`/v1/deploys/${rollback.data.id}`)).status).toBe("RUNNING");
});

test("a deploy that will fail is still QUEUED when accepted, then FAILED with its code", async () => {
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, { ...web(), image: "nginx:missing" });
  expect(svc.status).toBe("PROVISIONING");
  expect(await api.get<any>(`/v1/services/${svc.id}`)).toMatchObject({ status: "ERROR", health: "MISSING" });
  const again = await api.request<any>("POST", `/v1/services/${svc.id}/deploys`);
  expect(again.data).toMatchObject(NOT_STARTED);
  expect(await api.get<any>(`/v1/deploys/${again.data.id}`)).toMatchObject({ status: "FAILED", errorCode: "IMAGE_REJECTED" });
});

test("a manual cron run answers 202 QUEUED, then SUCCEEDED", async () => {
  const job = await api.create<any>(`/v1/environments/${envId}/services`, { ...web(), type: "CRON", schedule: "0 3 * * *", command: "node job.js" });
  expect(job.status).toBe("PROVISIONING");
  const run = await api.request<any>("POST", `/v1/services/${job.id}/runs`);
  expect([run.status, run.data]).toEqual([202, expect.objectContaining({ status: "QUEUED", exitCode: null, startedAt: null, finishedAt: null, trigger: "MANUAL" })]);
  expect(await api.get<any>(`/v1/cron-runs/${run.data.id}`)).toMatchObject({ status: "SUCCEEDED", exitCode: 0, finishedAt: expect.any(String) });
});

test("publishing a static site answers its site PROVISIONING and its deploy QUEUED (REST and GraphQL); a static deploy answers 202 QUEUED", async () => {
  const published = await api.request<any>("POST", "/v1/static-sites", { body: { uploadId: await uploadedPage(), environmentId: envId, name: `site-${++n}` } });
  expect(published.status).toBe(201);
  expect(published.data.site).toMatchObject({ status: "PROVISIONING", url: null });
  expect(published.data.deploy).toMatchObject(NOT_STARTED);
  expect(await api.get<any>(`/v1/services/${published.data.site.id}`)).toMatchObject({ status: "ACTIVE", url: expect.any(String) });
  expect((await api.get<any>(`/v1/deploys/${published.data.deploy.id}`)).status).toBe("RUNNING");

  const redeploy = await api.request<any>("POST", `/v1/services/${published.data.site.id}/static-deploys`, { body: { uploadId: await uploadedPage() } });
  expect([redeploy.status, redeploy.data]).toEqual([202, expect.objectContaining(NOT_STARTED)]);
  expect((await api.get<any>(`/v1/deploys/${redeploy.data.id}`)).status).toBe("RUNNING");

  const gql = await api.post<any>("/graphql", {
    query: "mutation($u: ID!, $e: ID) { deployStaticSite(uploadId: $u, environmentId: $e) { site { id status url } deploy { id status } } }",
    variables: { u: await uploadedPage(), e: envId },
  });
  expect(gql.data.deployStaticSite).toMatchObject({ site: { status: "PROVISIONING", url: null }, deploy: { status: "QUEUED" } });
  const gqlRedeploy = await api.post<any>("/graphql", {
    query: "mutation($s: ID!, $u: ID!) { redeployStaticSite(serviceId: $s, uploadId: $u) { id status } }",
    variables: { s: gql.data.deployStaticSite.site.id, u: await uploadedPage() },
  });
  expect(gqlRedeploy.data.redeployStaticSite.status).toBe("QUEUED");
  expect((await api.get<any>(`/v1/deploys/${gqlRedeploy.data.redeployStaticSite.id}`)).status).toBe("RUNNING");
});

test("a pull request opens its preview CREATING; it is ACTIVE with a url once its deploy is live", async () => {
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web());
  await api.put(`/v1/services/${svc.id}/previews-enabled`, { enabled: true });
  const opened = await emu.control("POST", "/previews", { serviceId: svc.id, prNumber: 42, headRef: "feature/fidelity" });
  expect(opened).toMatchObject({ status: "CREATING", url: null, error: null });
  expect(await api.get<any>(`/v1/previews/${opened.id}`)).toMatchObject({ status: "ACTIVE", url: expect.stringMatching(/^https:\/\//) });
  await api.delete(`/v1/previews/${opened.id}`);
});

test("a real send answers queued; the message then reads delivered", async () => {
  const added = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/mail/domains`, { name: "fidelity.test" });
  for (const r of added.records) await emu.control("POST", "/dns/records", { name: r.fqdn, type: r.type, value: r.value, priority: r.priority ?? undefined });
  expect((await api.post<any>(`/v1/workspaces/${emu.workspaceId}/mail/domains/${added.domain.id}/verify`)).domain.status).toBe("VERIFIED");
  const sent = await api.request<any>("POST", "/v1/emails", { body: { from: "app@fidelity.test", to: "ada@example.test", subject: "Hi", text: "Hello" } });
  expect([sent.status, sent.data.status]).toEqual([202, "queued"]);
  expect((await api.get<any>(`/v1/emails/${sent.data.id}`)).status).toBe("delivered");
});

test("at a realistic speed the accepting responses are exactly what a read at that moment shows", async () => {
  emu.emu.settings.speed = 1;
  const svc = await api.create<any>(`/v1/environments/${envId}/services`, web());
  const { updatedAt: _u, ...created } = svc;
  const { updatedAt: _r, ...read } = await api.get<any>(`/v1/services/${svc.id}`);
  expect(read).toEqual(created);
  const d = (await api.request<any>("POST", `/v1/services/${svc.id}/deploys`)).data;
  expect(await api.get<any>(`/v1/deploys/${d.id}`)).toEqual(d);
});
