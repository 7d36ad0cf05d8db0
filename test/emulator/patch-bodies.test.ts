// Every PATCH and PUT route of the REST table held to the spec (infrastructure routes §4): a field
// the spec does not define is a 400 naming it, and nothing changes (not even the fields it did
// define); a field the spec makes optional may be left out, and the object keeps what the body
// leaves out; a field it requires is named when missing. The choices where the spec says "not
// shown" are in docs/api-assumptions.md ("Request bodies of PATCH and PUT").
import { allRoutes } from "../../emulator/routes";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
const ids: Record<string, string> = {};

/** One call as a script would make it: the key, a JSON body; the status and the parsed answer. */
async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${emu.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${emu.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const r = await send(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
const messages = (body: any): string[] => (Array.isArray(body?.message) ? body.message : [body?.message]);

const at = (p: string) => p.replace(/\{(\w+)\}/g, (_, k) => ids[k]);
const bucketPath = "/v1/workspaces/{workspaceId}/buckets/{bucket}";
const record = async () => (await ok("GET", at("/v1/dns-zones/{zoneId}/records"))).data.find((r: any) => r.id === ids.recordId);
const mx = async () => (await ok("GET", at("/v1/dns-zones/{zoneId}/records"))).data.find((r: any) => r.id === ids.mxId);
const registered = async () => ok("GET", at("/v1/registered-domains/{domainId}"));

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  ids.workspaceId = emu.workspaceId;
  ids.projectId = (await ok("POST", `/v1/workspaces/${emu.workspaceId}/projects`, { name: "bodies", description: "as made" })).id;
  const envId = (await ok("POST", at("/v1/projects/{projectId}/environments"), { name: "dev" })).id;
  ids.serviceId = (await ok("POST", `/v1/environments/${envId}/services`, {
    name: "web", type: "WEB", image: "nginx:1.26", port: 8080, healthCheckPath: "/health", startCommand: "nginx -g 'daemon off;'",
    envVars: [{ key: "LOG_LEVEL", value: "info" }], secretFiles: [{ path: "/etc/app.conf", content: "a=1" }],
  })).id;
  ids.cronId = (await ok("POST", `/v1/environments/${envId}/services`, { name: "job", type: "CRON", image: "alpine:3", schedule: "0 3 * * *", command: "node report.js" })).id;
  ids.zoneId = (await ok("POST", `/v1/workspaces/${emu.workspaceId}/dns-zones`, { name: "bodies.test" })).id;
  ids.recordId = (await ok("POST", at("/v1/dns-zones/{zoneId}/records"), { name: "www", type: "CNAME", content: "app.example.net", ttl: 600 })).id;
  ids.mxId = (await ok("POST", at("/v1/dns-zones/{zoneId}/records"), { name: "@", type: "MX", content: "mx.example.net", priority: 20, ttl: 900 })).id;
  ids.domainId = (await ok("GET", `/v1/workspaces/${emu.workspaceId}/registered-domains`)).data[0].id;
  ids.bucket = (await ok("POST", `/v1/workspaces/${emu.workspaceId}/buckets`, { name: "bodies-bucket" })).name;
  await ok("PUT", at(`${bucketPath}/cors`), { rules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://app.example.com"] }] });
  await ok("PUT", at(`${bucketPath}/policy`), { policy: '{"Version":"2012-10-17"}' });
});
afterAll(async () => emu?.close());

/** Each route, a body that holds a field the spec does not define (beside a valid change), and a read of what it would change. */
const UNKNOWN: { route: string; body: unknown; unknown: string; read: () => Promise<unknown> }[] = [
  // The case: `image` belongs in `source`; at the top level it changed nothing and answered 200.
  { route: "PATCH /v1/services/{serviceId}", body: { image: "nginx:1.27" }, unknown: "image", read: () => ok("GET", at("/v1/services/{serviceId}")) },
  { route: "PATCH /v1/services/{serviceId}", body: { build: { port: 9090, cpu: 2 } }, unknown: "build.cpu", read: () => ok("GET", at("/v1/services/{serviceId}")) },
  { route: "PATCH /v1/services/{serviceId}", body: { source: { image: "nginx:1.27", tag: "latest" } }, unknown: "source.tag", read: () => ok("GET", at("/v1/services/{serviceId}")) },
  {
    route: "PATCH /v1/services/{serviceId}/env-vars", body: { envVars: [{ key: "LOG_LEVEL", value: "debug", note: "by hand" }] }, unknown: "envVars.0.note",
    read: () => ok("GET", at("/v1/services/{serviceId}/env-vars")),
  },
  { route: "PATCH /v1/services/{serviceId}/env-vars", body: { envVars: [{ key: "LOG_LEVEL", value: "debug" }], redeploy: true }, unknown: "redeploy", read: () => ok("GET", at("/v1/services/{serviceId}/env-vars")) },
  { route: "PUT /v1/services/{serviceId}/secret-files", body: { path: "/etc/app.conf", content: "a=2", mode: "0600" }, unknown: "mode", read: () => ok("GET", at("/v1/services/{serviceId}/secret-files")) },
  { route: "PATCH /v1/services/{cronId}/cron", body: { schedule: "0 4 * * *", timezone: "Africa/Lagos" }, unknown: "timezone", read: () => ok("GET", at("/v1/services/{cronId}")) },
  { route: "PUT /v1/services/{serviceId}/previews-enabled", body: { enabled: true, branch: "main" }, unknown: "branch", read: () => ok("GET", at("/v1/services/{serviceId}")) },
  { route: "PATCH /v1/projects/{projectId}", body: { description: "by hand", region: "eu-central-1" }, unknown: "region", read: () => ok("GET", at("/v1/projects/{projectId}")) },
  { route: "PATCH /v1/dns-records/{recordId}", body: { name: "www", type: "CNAME", content: "elsewhere.example.net", proxied: true }, unknown: "proxied", read: record },
  { route: "PATCH /v1/registered-domains/{domainId}", body: { autoRenew: false, locked: true }, unknown: "locked", read: registered },
  {
    route: `PUT ${bucketPath}/cors`, body: { rules: [{ allowedMethods: ["PUT"], allowedOrigins: ["*"], allowedMethod: ["GET"] }] }, unknown: "rules.0.allowedMethod",
    read: () => ok("GET", at(`${bucketPath}/cors`)),
  },
  { route: `PUT ${bucketPath}/cors`, body: { rules: [], replace: true }, unknown: "replace", read: () => ok("GET", at(`${bucketPath}/cors`)) },
  { route: `PUT ${bucketPath}/policy`, body: { policy: "{}", version: "2" }, unknown: "version", read: () => ok("GET", at(`${bucketPath}/policy`)) },
];

/** The spec's table as the route table writes it (`:serviceId`), from this file's routes. */
const asTable = (route: string) => route.replace(/\{(cronId|serviceId)\}/, ":serviceId").replace(/\{(\w+)\}/g, ":$1");

test("every PATCH and PUT route of the route table is held to the spec here", () => {
  const routes = allRoutes.filter((r) => r.method === "PATCH" || r.method === "PUT").map((r) => `${r.method} ${r.url}`).sort();
  expect([...new Set(UNKNOWN.map((c) => asTable(c.route)))].sort()).toEqual(routes);
});

test.each(UNKNOWN.map((c) => [`${c.route} ${JSON.stringify(c.body)}`, c] as const))("%s: 400 naming the unknown field; nothing changes", async (_name, c) => {
  const before = await c.read();
  const [method, path] = c.route.split(" ");
  const r = await send(method, at(path), c.body);
  expect([r.status, messages(r.body)]).toEqual([400, [`${c.unknown}: is not a field of this body`]]);
  expect(await c.read()).toEqual(before);
});

test("a field the spec makes optional may be left out: the object keeps what the body does not name", async () => {
  // PATCH /v1/services/{id}: name, build and source, all optional, and each of build's and source's fields
  await ok("PATCH", at("/v1/services/{serviceId}"), { build: { startCommand: "nginx" } });
  expect(await ok("GET", at("/v1/services/{serviceId}"))).toMatchObject({
    name: "web", port: 8080, healthCheckPath: "/health", build: { startCommand: "nginx" }, source: { image: "nginx:1.26" },
  });
  await ok("PATCH", at("/v1/services/{serviceId}"), { source: { image: "nginx:1.27" } });
  expect(await ok("GET", at("/v1/services/{serviceId}"))).toMatchObject({ port: 8080, build: { startCommand: "nginx" }, source: { type: "CONTAINER_IMAGE", image: "nginx:1.27" } });
  expect((await send("PATCH", at("/v1/services/{serviceId}"), {})).status).toBe(200);

  // PATCH /v1/projects/{id}: name, displayName, description, all optional
  await ok("PATCH", at("/v1/projects/{projectId}"), { displayName: "Bodies" });
  expect(await ok("GET", at("/v1/projects/{projectId}"))).toMatchObject({ name: "bodies", displayName: "Bodies", description: "as made" });

  // PATCH …/cron: schedule and command, both optional
  await ok("PATCH", at("/v1/services/{cronId}/cron"), { command: "node summary.js" });
  expect((await ok("GET", at("/v1/services/{cronId}"))).cron).toMatchObject({ schedule: "0 3 * * *", command: "node summary.js" });

  // PATCH /v1/registered-domains/{id}: autoRenew, nameserverMode, nameservers, all optional
  const mode = (await registered()).nameserverMode;
  await ok("PATCH", at("/v1/registered-domains/{domainId}"), { autoRenew: false });
  expect(await registered()).toMatchObject({ autoRenew: false, nameserverMode: mode });

  // PATCH …/env-vars upserts by key: the keys it does not list are kept; scope and secret are optional
  await ok("PATCH", at("/v1/services/{serviceId}/env-vars"), { envVars: [{ key: "MODE", value: "dark" }] });
  expect((await ok("GET", at("/v1/services/{serviceId}/env-vars"))).data.map((v: any) => [v.key, v.value]).sort()).toEqual([["LOG_LEVEL", "info"], ["MODE", "dark"]]);
});

test("PATCH /v1/dns-records/{id}: name, type and content are required as the spec says; ttl and priority left out are kept", async () => {
  const before = await record();
  const ttlOnly = await send("PATCH", at("/v1/dns-records/{recordId}"), { ttl: 300 });
  expect(ttlOnly.status).toBe(400);
  expect(messages(ttlOnly.body)).toEqual(["name", "type", "content"].map((f) => `${f}: is required (a record is sent with name, type and content; ttl and priority are optional)`));
  expect(await record()).toEqual(before);

  await ok("PATCH", at("/v1/dns-records/{recordId}"), { name: "www", type: "CNAME", content: "elsewhere.example.net" });
  expect(await record()).toMatchObject({ content: "elsewhere.example.net", ttl: 600 });
  await ok("PATCH", at("/v1/dns-records/{mxId}"), { name: "@", type: "MX", content: "mx2.example.net" });
  expect(await mx()).toMatchObject({ content: "mx2.example.net", ttl: 900, priority: 20 });
  await ok("PATCH", at("/v1/dns-records/{mxId}"), { name: "@", type: "MX", content: "mx2.example.net", ttl: 300, priority: 5 });
  expect(await mx()).toMatchObject({ ttl: 300, priority: 5 });
});

test.each([
  ["PATCH /v1/services/{serviceId}/env-vars", {}, "envVars"],
  ["PUT /v1/services/{serviceId}/secret-files", { path: "/etc/other.conf" }, "content"],
  ["PUT /v1/services/{serviceId}/previews-enabled", {}, "enabled"],
  [`PUT ${bucketPath}/policy`, {}, "policy"],
] as const)("%s: a field the spec requires is named when missing", async (route, body, field) => {
  const [method, path] = route.split(" ");
  const r = await send(method, at(path), body);
  expect(r.status).toBe(400);
  expect(messages(r.body).join("\n")).toMatch(new RegExp(`^${field}: `, "m"));
});
