// POST /graphql: the named operations, their scopes, sessions versus keys, the rate per operation,
// and the error shape of §7.2 (HTTP 200, errors[] with extensions.code, data null).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AuthenticationError, RateLimitError } from "../../provider/client";
import { printedSchema } from "../../emulator/graphql/schema";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
let session: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  session = await signIn(emu.login.email, emu.login.password);
});
afterAll(async () => emu?.close());

const clients = new Map<string, ReturnType<TestEmulator["client"]>>();
const client = (key: string) => clients.get(key) ?? clients.set(key, emu.client(key)).get(key)!;

/** A GraphQL call: keys through the project's client; sessions and anonymous calls over fetch (the client takes keys only). */
async function gql(token: string | null, query: string, variables?: Record<string, unknown>): Promise<{ data: any; errors?: any[] }> {
  if (token && !token.startsWith("sess_")) return client(token).post("/graphql", { query, variables });
  const res = await fetch(`${emu.baseUrl}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

async function signIn(email: string, password: string): Promise<string> {
  const s = await client(emu.apiKey).post<any>("/v1/auth/login", { email, password });
  expect(s).toMatchObject({ accessToken: expect.stringMatching(/^sess_/), user: { email }, twoFactor: null });
  return s.accessToken;
}

const TEAMS = "query getMyTeams { getMyTeams { items { id name role } } }";
const CREATE = "mutation createApiToken($name: String!, $scopes: [ApiTokenArea!]!, $teamId: ID) { createApiToken(name: $name, scopes: $scopes, teamId: $teamId) { key apiToken { id name scopes teamId tokenHint tokenTail revokedAt } } }";
const REVOKE = "mutation revokeApiToken($id: ID!) { revokeApiToken(id: $id) { id revokedAt } }";
const PUBLISH = "mutation publishMailDomainRecords($domainId: ID!) { publishMailDomainRecords(domainId: $domainId) { zoneName created records { id name type content priority origin } } }";
const code = (r: { errors?: any[] }) => r.errors?.map((e) => e.extensions.code);

test("getMyTeams lists the workspaces a key or a session reaches", async () => {
  expect((await gql(emu.apiKey, TEAMS)).data.getMyTeams.items).toEqual([{ id: emu.workspaceId, name: "Acme", role: "OWNER" }]);
  expect((await gql(emu.keys.account, TEAMS)).data.getMyTeams.items.map((t: any) => t.name).sort()).toEqual(["Acme", "Acme Staging"]);
  expect((await gql(session, TEAMS)).data.getMyTeams.items.map((t: any) => t.name).sort()).toEqual(["Acme", "Acme Staging"]);
  expect((await gql(emu.keys.otherWorkspace, TEAMS)).data.getMyTeams.items.map((t: any) => t.id)).toEqual([emu.otherWorkspaceId]);
});

test("errors: UNAUTHENTICATED, FORBIDDEN naming the scope, BAD_USER_INPUT naming the field; always HTTP 200", async () => {
  const anonymous = await gql(null, TEAMS);
  expect(anonymous).toEqual({ data: null, errors: [expect.objectContaining({ message: expect.stringMatching(/Missing API key/), extensions: { code: "UNAUTHENTICATED" } })] });
  expect(code(await gql(`sess_${"x".repeat(40)}`, TEAMS))).toEqual(["UNAUTHENTICATED"]);

  const sendOnly = await gql(emu.keys.sendOnly, TEAMS);
  expect(sendOnly.data).toBeNull();
  expect(sendOnly.errors).toEqual([expect.objectContaining({ message: expect.stringContaining("PLATFORM_API"), extensions: { code: "FORBIDDEN" } })]);
  const noMail = await gql(emu.keys.platformOnly, PUBLISH, { domainId: "x" });
  expect(noMail.errors![0]).toMatchObject({ message: expect.stringContaining("EMAIL_SEND"), extensions: { code: "FORBIDDEN" } });
  const readOnly = await gql(emu.keys.readPlatform, REVOKE, { id: "x" });
  expect(readOnly.errors![0]).toMatchObject({ message: expect.stringContaining("WRITE"), extensions: { code: "FORBIDDEN" } });
  expect((await gql(emu.keys.mail, TEAMS)).errors![0]).toMatchObject({ message: expect.stringMatching(/email REST API/), extensions: { code: "FORBIDDEN" } });

  const missing = await gql(session, CREATE, { scopes: ["DEPLOYS"] });
  expect(missing.errors![0]).toMatchObject({ message: expect.stringContaining("$name"), extensions: { code: "BAD_USER_INPUT" } });
  const badArea = await gql(session, CREATE, { name: "x", scopes: ["READ"] });
  expect(badArea.errors![0]).toMatchObject({ message: expect.stringContaining("$scopes"), extensions: { code: "BAD_USER_INPUT" } });
  const empty = await gql(session, CREATE, { name: " ", scopes: [] });
  expect(empty).toEqual({ data: null, errors: [expect.objectContaining({ extensions: { code: "BAD_USER_INPUT" } })] });
  expect(empty.errors![0].message).toMatch(/name: must not be empty.*scopes: must list at least one area/);
  expect(code(await gql(emu.apiKey, "{ getMyTeams { nope } }"))).toEqual(["GRAPHQL_VALIDATION_FAILED"]);
});

test("createApiToken and revokeApiToken need a signed-in session; the key is shown once and listed by hints only", async () => {
  const byKey = await gql(emu.apiKey, CREATE, { name: "ci", scopes: ["DEPLOYS"], teamId: emu.workspaceId });
  expect(byKey).toEqual({ data: null, errors: [expect.objectContaining({ message: expect.stringMatching(/signed-in session/), extensions: { code: "FORBIDDEN" } })] });
  expect(await failure(client(emu.apiKey).post("/v1/auth/login", { email: emu.login.email, password: "wrong" }))).toBeInstanceOf(AuthenticationError);

  const made = (await gql(session, CREATE, { name: "ci", scopes: ["DEPLOYS", "PLATFORM_API"], teamId: emu.workspaceId })).data.createApiToken;
  expect(made.key).toMatch(/^svc_live_[A-Za-z0-9]{40}$/);
  expect(made.apiToken).toEqual({
    id: expect.any(String), name: "ci", scopes: ["READ", "WRITE", "DEPLOYS", "PLATFORM_API"], teamId: emu.workspaceId,
    tokenHint: made.key.slice(0, 13), tokenTail: made.key.slice(-4), revokedAt: null,
  });
  // The new key works, reaches its one workspace, and is never shown again.
  expect((await gql(made.key, TEAMS)).data.getMyTeams.items.map((t: any) => t.id)).toEqual([emu.workspaceId]);
  const listed = await client(emu.apiKey).list<any>(`/v1/workspaces/${emu.workspaceId}/api-keys`);
  expect(listed.find((k) => k.id === made.apiToken.id)).toMatchObject({ tokenHint: made.key.slice(0, 13), tokenTail: made.key.slice(-4) });
  expect(JSON.stringify(listed)).not.toContain(made.key);

  // A read-only member's keys can only read.
  const viewer = await signIn("viewer@example.test", emu.login.password);
  const viewers = (await gql(viewer, CREATE, { name: "viewer", scopes: ["PLATFORM_API"], teamId: emu.workspaceId })).data.createApiToken;
  expect(viewers.apiToken.scopes).toEqual(["READ", "PLATFORM_API"]);
  // Not the viewer's key and not an admin: refused; another workspace's id: not found.
  expect(code(await gql(viewer, REVOKE, { id: made.apiToken.id }))).toEqual(["FORBIDDEN"]);
  expect(code(await gql(session, REVOKE, { id: "no-such-key" }))).toEqual(["NOT_FOUND"]);

  expect(code(await gql(emu.apiKey, REVOKE, { id: made.apiToken.id }))).toEqual(["FORBIDDEN"]);
  const revoked = (await gql(session, REVOKE, { id: made.apiToken.id })).data.revokeApiToken;
  expect(revoked).toEqual({ id: made.apiToken.id, revokedAt: expect.any(String) });
  expect(code(await gql(made.key, TEAMS))).toEqual(["UNAUTHENTICATED"]);
});

test("at most 10 keys an hour per person, on the emulator clock", async () => {
  await emu.control("POST", "/reset");
  const dev = await signIn("dev@example.test", emu.login.password);
  for (let i = 0; i < 10; i++) expect((await gql(dev, CREATE, { name: `k${i}`, scopes: ["DEPLOYS"] })).errors).toBeUndefined();
  const eleventh = await gql(dev, CREATE, { name: "k10", scopes: ["DEPLOYS"] });
  expect(eleventh.errors).toEqual([expect.objectContaining({ extensions: { code: "THROTTLED", retryAfterSeconds: expect.any(Number) } })]);
  await emu.control("POST", "/time", { advanceMs: 3_601_000 });
  expect((await gql(dev, CREATE, { name: "k11", scopes: ["DEPLOYS"] })).errors).toBeUndefined();
  // A reset forgets the keys sessions issued.
  await emu.control("POST", "/reset");
  expect((await client(emu.apiKey).list<any>(`/v1/workspaces/${emu.workspaceId}/api-keys`)).filter((k) => /^k\d+$/.test(k.name))).toEqual([]);
});

test("publishMailDomainRecords puts a mail domain's records into its platform zone, once", async () => {
  const api = client(emu.apiKey);
  await emu.control("POST", "/dns/delegations", { domain: "publish.test" });
  const zone = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/dns-zones`, { name: "publish.test" });
  await api.post(`/v1/dns-zones/${zone.id}/verify`);
  const domain = (await api.create<any>(`/v1/workspaces/${emu.workspaceId}/mail/domains`, { name: "mail.publish.test" })).domain;

  const first = (await gql(emu.apiKey, PUBLISH, { domainId: domain.id })).data.publishMailDomainRecords;
  expect(first.zoneName).toBe("publish.test");
  expect(first.created).toBe(4);
  expect(first.records.map((r: any) => [r.type, r.name, r.origin])).toEqual([
    ["TXT", expect.stringMatching(/^cp[0-9a-f]{6}\._domainkey\.mail$/), "MAIL"], ["TXT", "mail", "MAIL"], ["MX", "mail", "MAIL"], ["TXT", "_dmarc.mail", "MAIL"],
  ]);
  const again = (await gql(emu.apiKey, PUBLISH, { domainId: domain.id })).data.publishMailDomainRecords;
  expect(again.created).toBe(0);
  expect(again.records.map((r: any) => r.id)).toEqual(first.records.map((r: any) => r.id));
  expect(await api.list(`/v1/dns-zones/${zone.id}/records`)).toHaveLength(4);
  const verified = await api.post<any>(`/v1/workspaces/${emu.workspaceId}/mail/domains/${domain.id}/verify`);
  expect(verified.domain.status).toBe("VERIFIED");

  const elsewhere = (await api.create<any>(`/v1/workspaces/${emu.workspaceId}/mail/domains`, { name: "mail.not-hosted.test" })).domain;
  const notHosted = await gql(emu.apiKey, PUBLISH, { domainId: elsewhere.id });
  expect(notHosted.errors![0]).toMatchObject({ message: expect.stringMatching(/^domainId: the zone not-hosted\.test/), extensions: { code: "BAD_USER_INPUT" } });
  expect(code(await gql(emu.keys.otherWorkspace, PUBLISH, { domainId: domain.id }))).toEqual(["NOT_FOUND"]);
  expect(code(await gql(emu.keys.sandbox, PUBLISH, { domainId: domain.id }))).toEqual(["FORBIDDEN"]);
  await emu.control("POST", "/reset");
  expect(await emu.leftovers()).toEqual({});
});

test("300 requests a minute per key and operation, then THROTTLED until the minute has passed", async () => {
  const key = emu.keys.readPlatform;
  const results = [];
  for (let i = 0; i < 299; i += 50) results.push(...(await Promise.all(Array.from({ length: Math.min(50, 299 - i) }, () => gql(key, TEAMS)))));
  expect(results.filter((r) => r.errors)).toEqual([]);
  // The 300th: two aliases in one request are one request.
  const twice = await gql(key, "{ a: getMyTeams { items { id } } b: getMyTeams { items { id } } }");
  expect(twice.errors).toBeUndefined();
  const over = await gql(key, TEAMS);
  expect(over).toEqual({ data: null, errors: [expect.objectContaining({ extensions: { code: "THROTTLED", retryAfterSeconds: expect.any(Number) } })] });
  // Other keys are not affected.
  expect((await gql(emu.keys.platformOnly, TEAMS)).errors).toBeUndefined();
  await emu.control("POST", "/time", { advanceMs: 61_000 });
  expect((await gql(key, TEAMS)).errors).toBeUndefined();
});

test("§7.2 for every failure: the per-key rate limit is THROTTLED; a body without a readable query is BAD_USER_INPUT; always HTTP 200", async () => {
  const post = async (body: string, contentType = "application/json") => {
    const res = await fetch(`${emu.baseUrl}/graphql`, { method: "POST", headers: { "content-type": contentType, authorization: `Bearer ${emu.apiKey}` }, body });
    return { status: res.status, body: (await res.json()) as any };
  };
  const refused = (message: RegExp | string, code = "BAD_USER_INPUT") => ({
    status: 200, body: { data: null, errors: [{ message: typeof message === "string" ? expect.stringContaining(message) : expect.stringMatching(message), extensions: expect.objectContaining({ code }) }] },
  });
  expect(await post("{not json")).toEqual(refused("Body is not valid JSON"));
  expect(await post("{}")).toEqual(refused("query: is required"));
  expect(await post(JSON.stringify({ query: 5 }))).toEqual(refused("query: is required: a GraphQL document as a string"));
  expect(await post(JSON.stringify({ query: "   " }))).toEqual(refused("query: must not be empty"));
  expect(await post(JSON.stringify({ query: TEAMS, variables: 5 }))).toEqual(refused("variables: must be an object"));
  expect(await post(JSON.stringify({ query: TEAMS, operationName: 7 }))).toEqual(refused("operationName: must be a string"));
  expect(await post(JSON.stringify([{ query: TEAMS }]))).toEqual(refused("body: must be a JSON object with a query string"));
  expect(await post("null")).toEqual(refused("body: must be a JSON object with a query string"));
  expect(await post("query { getMyTeams { items { id } } }", "text/plain")).toEqual(refused("body: must be a JSON object"));
  expect(await post("<query/>", "application/xml")).toEqual(refused(/content-type/i));
  const get = await fetch(`${emu.baseUrl}/graphql?variables=%7B`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
  expect({ status: get.status, body: await get.json() }).toEqual(refused("query: is required"));
  // The schema still refuses what it does not know, and a good request still answers.
  expect((await post(JSON.stringify({ query: "{ nothing }" }))).body.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
  expect((await post(JSON.stringify({ query: TEAMS }))).body.data.getMyTeams.items.length).toBeGreaterThan(0);

  // The per-key limit (--rate-limit) answers GraphQL as the built-in rate does: 200 and THROTTLED.
  await emu.control("PUT", "/rate-limit", { perMinute: 60, burst: 2 });
  try {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await post(JSON.stringify({ query: TEAMS })));
    expect(answers.slice(0, 2).map((a) => a.body.errors)).toEqual([undefined, undefined]);
    expect(answers[2]).toEqual({
      status: 200,
      body: { data: null, errors: [{ message: expect.stringContaining("Rate limit exceeded"), extensions: { code: "THROTTLED", retryAfterSeconds: 1 } }] },
    });
    // REST keeps its 429 with Retry-After.
    const rest = await fetch(`${emu.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
    expect([rest.status, rest.headers.get("retry-after")]).toEqual([429, "1"]);
  } finally {
    await emu.control("DELETE", "/rate-limit");
  }
});

test("sign-in: 10 attempts a minute per address, and a session lasts 12 hours on the emulator clock", async () => {
  const email = "stranger@example.test";
  for (let i = 0; i < 10; i++) expect(await failure(client(emu.apiKey).post("/v1/auth/login", { email, password: "wrong" }))).toBeInstanceOf(AuthenticationError);
  // No retry: the client would otherwise wait out the Retry-After (a minute) and try again.
  const limited = await failure(client(emu.apiKey).post("/v1/auth/login", { email, password: emu.login.password }, { retry: { maxRetries: 0 } }));
  expect(limited).toBeInstanceOf(RateLimitError);
  await emu.control("POST", "/time", { advanceMs: 61_000 });
  const theirs = await signIn(email, emu.login.password);
  expect((await gql(theirs, TEAMS)).data.getMyTeams.items.map((t: any) => t.id)).toEqual([emu.otherWorkspaceId]);
  await emu.control("POST", "/time", { advanceMs: 12 * 3_600_000 });
  const expired = await gql(theirs, TEAMS);
  expect(expired.errors![0]).toMatchObject({ message: expect.stringMatching(/expired/), extensions: { code: "UNAUTHENTICATED" } });
  await emu.control("POST", "/time", { reset: true });
});

test("docs/api-assumptions.md holds the served schema (`make schema` rewrites it)", () => {
  const doc = readFileSync(join(__dirname, "../../docs/api-assumptions.md"), "utf8");
  const block = /```graphql\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(block?.trim()).toBe(printedSchema().trim());
});

test("static sites: createStaticUpload, the upload, deployStaticSite, redeployStaticSite; DEPLOYS may redeploy but not create", async () => {
  const UPLOAD = "mutation u($f: String!, $t: String!, $n: Float!) { createStaticUpload(filename: $f, contentType: $t, sizeBytes: $n) { uploadId url method headers { name value } maxBytes } }";
  const DEPLOY = "mutation d($u: ID!, $name: String) { deployStaticSite(uploadId: $u, name: $name) { site { id type url } deploy { id serviceId } } }";
  const REDEPLOY = "mutation r($s: ID!, $u: ID!) { redeployStaticSite(serviceId: $s, uploadId: $u) { id serviceId } }";
  const upload = async (token: string, html: string) => {
    const body = Buffer.from(html);
    const r = (await gql(token, UPLOAD, { f: "index.html", t: "text/html", n: body.length })).data.createStaticUpload;
    const res = await fetch(r.url, { method: r.method, headers: Object.fromEntries(r.headers.map((h: any) => [h.name, h.value])), body });
    expect(res.status).toBeLessThan(300);
    return r.uploadId as string;
  };
  const first = await upload(emu.apiKey, "<h1>one</h1>");
  const made = (await gql(emu.apiKey, DEPLOY, { u: first, name: "gql-site" })).data.deployStaticSite;
  expect(made.site).toMatchObject({ type: "STATIC" });
  expect(made.deploy.serviceId).toBe(made.site.id);
  expect(code(await gql(emu.apiKey, DEPLOY, { u: first }))).toEqual(["CONFLICT"]);
  expect(code(await gql(emu.apiKey, UPLOAD, { f: "site.tar", t: "application/x-tar", n: 10 }))).toEqual(["BAD_USER_INPUT"]);

  // a DEPLOYS-only key uploads to the existing site, but cannot create one
  const second = await upload(emu.keys.deploysOnly, "<h1>two</h1>");
  const redeployed = (await gql(emu.keys.deploysOnly, REDEPLOY, { s: made.site.id, u: second })).data.redeployStaticSite;
  expect(redeployed.serviceId).toBe(made.site.id);
  expect(redeployed.id).not.toBe(made.deploy.id);
  const third = await upload(emu.keys.deploysOnly, "<h1>three</h1>");
  const refused = await gql(emu.keys.deploysOnly, DEPLOY, { u: third });
  expect(refused.errors).toEqual([expect.objectContaining({ message: expect.stringContaining("PLATFORM_API"), extensions: { code: "FORBIDDEN" } })]);
});

test("an emulator never asked a GraphQL question loads neither graphql-js, mercurius nor pg; the first question loads the service and is answered", () => {
  // A fresh process, as `cloudplatform-emulator` starts: most runs never reach GraphQL or a database.
  const script = `
    const loaded = () => ["graphql", "mercurius", "pg"].filter((p) => Object.keys(require.cache).some((f) => f.includes("/node_modules/" + p + "/")));
    require("./dist/emulator").startEmulator({}).then(async (e) => {
      const before = loaded();
      const res = await fetch(e.baseUrl + "/graphql", { method: "POST", headers: { authorization: "Bearer " + e.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ query: "query getMyTeams { getMyTeams { items { id } } }" }) });
      const body = await res.json();
      console.log(JSON.stringify({ before, after: loaded(), status: res.status, teams: body.data && body.data.getMyTeams.items.length, errors: body.errors }));
      await e.close();
    });
  `;
  const out = execFileSync(process.execPath, ["-e", script], { cwd: join(__dirname, "../.."), encoding: "utf8" });
  const { before, after, status, teams, errors } = JSON.parse(out.trim().split("\n").pop()!);
  expect({ before, after, status, errors }).toEqual({ before: [], after: ["graphql", "mercurius"], status: 200, errors: undefined });
  expect(teams).toBeGreaterThan(0);
});
