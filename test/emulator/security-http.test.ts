// The emulator treats the browser as hostile (docs/security.md): a page cannot change it with a
// simple cross-site request, a DNS-rebinding page cannot read it, and a shared emulator answers
// its control API and dashboard only to the token's holders.
import { request } from "node:http";
import { startEmulator } from "../../emulator";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ allowedHost: ["emulator.internal"] });
});
afterAll(async () => emu?.close());

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTP request with exactly these headers (fetch does not let a caller set Host). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  const url = new URL(base);
  return new Promise((ok, fail) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => ok({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", fail);
    req.end(body);
  });
}

const project = async () => emu.client().post<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: `kept-${Date.now()}` });

test("a cross-site simple POST cannot reset the emulator: nothing is wiped", async () => {
  const made = await project();
  const host = new URL(emu.baseUrl).host;
  // What fetch(url, {method: "POST", mode: "no-cors"}) from a page at evil.example sends: no content type.
  const simple = await raw(emu.baseUrl, "POST", "/_emulator/reset", { host, origin: "http://evil.example" });
  expect(simple.status).toBe(415);
  expect(JSON.parse(simple.body).message).toMatch(/^content-type: .*application\/json/);
  // A form post (text/plain) and JSON from another origin, or marked cross-site, are refused too.
  const form = await raw(emu.baseUrl, "POST", "/_emulator/reset", { host, "content-type": "text/plain" }, "{}");
  expect(form.status).toBe(415);
  const json = { host, "content-type": "application/json" };
  const otherOrigin = await raw(emu.baseUrl, "POST", "/_emulator/reset", { ...json, origin: "http://evil.example" });
  expect([otherOrigin.status, JSON.parse(otherOrigin.body).message]).toEqual([403, expect.stringMatching(/^origin: http:\/\/evil\.example is another site/)]);
  const nullOrigin = await raw(emu.baseUrl, "POST", "/_emulator/faults", { ...json, origin: "null" }, JSON.stringify({ kind: "drop" }));
  expect(nullOrigin.status).toBe(403);
  const crossSite = await raw(emu.baseUrl, "DELETE", "/_emulator/faults", { ...json, "sec-fetch-site": "cross-site" });
  expect([crossSite.status, JSON.parse(crossSite.body).message]).toEqual([403, expect.stringMatching(/^sec-fetch-site: /)]);
  expect(await emu.control("GET", "/faults")).toEqual({ data: [] });
  expect((await emu.leftovers()).projects).toBeGreaterThanOrEqual(1);
  await emu.client().get(`/v1/projects/${made.id}`);

  // The emulator's own pages (same origin) and tools (no Origin) may.
  const sameOrigin = await raw(emu.baseUrl, "PUT", "/_emulator/rate-limit", { ...json, origin: emu.baseUrl, "sec-fetch-site": "same-origin" }, JSON.stringify({ perMinute: 600 }));
  expect(sameOrigin.status).toBe(200);
  await emu.control("DELETE", "/rate-limit");
  await emu.control("POST", "/reset");
  expect(await emu.leftovers()).toEqual({});
});

test("a rebinding Host is refused on every route with 403 naming --allowed-host; known names and addresses are answered", async () => {
  const port = new URL(emu.baseUrl).port;
  const evil = { host: `rebind.evil.example:${port}` };
  const keys = await raw(emu.baseUrl, "GET", "/_emulator/storage/access-keys", evil);
  expect(keys.status).toBe(403);
  expect(keys.body).toContain("--allowed-host rebind.evil.example");
  expect(keys.body).not.toContain(emu.storageKeys[0].secret);
  for (const path of ["/v1/me", "/_emulator/ui/api/summary", "/_emulator/ui/", "/_emulator/mail/outbox", "/_storage/af-west-1/any/key", "/_sites/any/", "/_uploads/x", "/_exports/x"]) {
    expect([path, (await raw(emu.baseUrl, "GET", path, { ...evil, authorization: `Bearer ${emu.apiKey}` })).status]).toEqual([path, 403]);
  }
  // GraphQL refuses in its own shape (conventions §7.2): HTTP 200, a code.
  const gql = await raw(emu.baseUrl, "POST", "/graphql", { ...evil, "content-type": "application/json", authorization: `Bearer ${emu.apiKey}` }, JSON.stringify({ query: "{ getMyTeams { items { id } } }" }));
  expect([gql.status, JSON.parse(gql.body)]).toEqual([200, { data: null, errors: [expect.objectContaining({ extensions: { code: "FORBIDDEN" } })] }]);
  // A malformed Host (userinfo smuggled in) is refused, not parsed into a loopback name.
  expect((await raw(emu.baseUrl, "GET", "/_emulator/health", { host: "evil.example@127.0.0.1" })).status).toBe(403);

  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `LOCALHOST.:${port}`, `app.localhost:${port}`, `[::1]:${port}`, `192.168.1.20:${port}`, `emulator.internal:${port}`, "emulator.internal"]) {
    const res = await raw(emu.baseUrl, "GET", "/_emulator/storage/access-keys", { host });
    expect([host, res.status]).toEqual([host, 200]);
  }
});

test("a bad --allowed-host is refused before the emulator starts", async () => {
  await expect(startEmulator({ allowedHost: ["http://emulator:4510"] })).rejects.toThrow(/--allowed-host must be a host name .*got 'http:\/\/emulator:4510'/);
});

describe("with a control token", () => {
  const TOKEN = "t0ken-for-the-tests-0123456789";
  let shared: TestEmulator;
  beforeAll(async () => {
    shared = await emulator({ controlToken: TOKEN });
  });
  afterAll(async () => shared?.close());

  test("the control API and the dashboard's JSON need the token; the API keeps its own key checks", async () => {
    const denied = await fetch(`${shared.baseUrl}/_emulator/storage/access-keys`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(((await denied.json()) as any).message).toMatch(/x-emulator-token/);
    expect((await fetch(`${shared.baseUrl}/_emulator/ui/api/summary`)).status).toBe(401);
    expect((await fetch(`${shared.baseUrl}/_emulator/storage/access-keys`, { headers: { "x-emulator-token": "wrong-token-wrong-token" } })).status).toBe(401);
    expect((await fetch(`${shared.baseUrl}/_emulator/storage/access-keys`, { headers: { "x-emulator-token": TOKEN } })).status).toBe(200);
    expect((await fetch(`${shared.baseUrl}/_emulator/ui/api/summary`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    // A change without the token changes nothing.
    const reset = await fetch(`${shared.baseUrl}/_emulator/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "drop" }) });
    expect(reset.status).toBe(401);
    expect(await shared.control("GET", "/faults")).toEqual({ data: [] });
    // Health probes stay open; the API answers to keys, not to the token.
    expect((await fetch(`${shared.baseUrl}/_emulator/health`)).status).toBe(200);
    expect((await fetch(`${shared.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${shared.apiKey}` } })).status).toBe(200);
    expect((await fetch(`${shared.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(401);
  });

  test("the dashboard sends a visitor to sign in, and signing in sets an HttpOnly, SameSite=Strict cookie", async () => {
    const page = await fetch(`${shared.baseUrl}/_emulator/ui/`, { redirect: "manual" });
    expect([page.status, page.headers.get("location")]).toEqual([303, "/_emulator/ui/sign-in.html"]);
    const signInPage = await fetch(`${shared.baseUrl}/_emulator/ui/sign-in.html`);
    expect([signInPage.status, await signInPage.text()]).toEqual([200, expect.stringContaining("sign-in.js")]);

    const json = { "content-type": "application/json" };
    const wrong = await fetch(`${shared.baseUrl}/_emulator/ui/sign-in`, { method: "POST", headers: json, body: JSON.stringify({ token: "not-it" }) });
    expect([wrong.status, wrong.headers.get("set-cookie")]).toEqual([401, null]);
    // Signing in is a change like any other: JSON from the emulator's own origin only.
    const crossSite = await fetch(`${shared.baseUrl}/_emulator/ui/sign-in`, { method: "POST", headers: { ...json, origin: "http://evil.example" }, body: JSON.stringify({ token: TOKEN }) });
    expect(crossSite.status).toBe(403);
    const ok = await fetch(`${shared.baseUrl}/_emulator/ui/sign-in`, { method: "POST", headers: { ...json, origin: shared.baseUrl }, body: JSON.stringify({ token: TOKEN }) });
    expect(ok.status).toBe(204);
    const cookie = ok.headers.get("set-cookie")!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\/_emulator/);
    expect(cookie).not.toContain(TOKEN);
    const jar = cookie.split(";")[0];
    expect((await fetch(`${shared.baseUrl}/_emulator/ui/api/summary`, { headers: { cookie: jar } })).status).toBe(200);
    expect((await fetch(`${shared.baseUrl}/_emulator/ui/`, { headers: { cookie: jar }, redirect: "manual" })).status).toBe(200);
    expect((await fetch(`${shared.baseUrl}/_emulator/ui/api/summary`, { headers: { cookie: `${jar}x` } })).status).toBe(401);
    const out = await fetch(`${shared.baseUrl}/_emulator/ui/sign-out`, { method: "POST", headers: json });
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });

  test("serving beyond loopback needs a token of at least 16 characters", async () => {
    await expect(startEmulator({ host: "0.0.0.0" })).rejects.toThrow(/--host 0\.0\.0\.0 serves beyond this machine.*--control-token/);
    await expect(startEmulator({ host: "0.0.0.0", controlToken: "short" })).rejects.toThrow(/at least 16 characters/);
  });
});
