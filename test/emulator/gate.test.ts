// The gate (emulator/guard.ts, docs/security.md): every safety decision is made on the route the
// router matched, whatever the spelling of its path. Each attack of the review that found the
// spellings (issue 38) is replayed here and refused, with the state unchanged; the targets the gate
// refuses before routing, the surfaces' table, framing and the listeners' addresses are checked.
import Fastify from "fastify";
import { createSocket } from "node:dgram";
import { request } from "node:http";
import { startEmulator } from "../../emulator";
import { buildApp } from "../../emulator/app";
import type { Emu } from "../../emulator/emu";
import { canonicalTarget, installGuard, registeredRoutes, SURFACES, surfaceOfPattern } from "../../emulator/guard";
import { emulator, type TestEmulator } from "../support/emulator";

jest.setTimeout(60_000);

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with exactly this target and these headers (fetch normalises paths and sets Host). */
function raw(base: string, method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  const url = new URL(base);
  const sized = body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
  return new Promise((ok, fail) => {
    const req = request({ host: url.hostname, port: url.port, method, path: target, headers: { host: url.host, ...sized } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => ok({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", fail);
    req.end(body);
  });
}

const CROSS_SITE = { origin: "http://evil.example", "sec-fetch-site": "cross-site" };
const JSON_TYPE = { "content-type": "application/json" };
const TOKEN = "gate-test-token-0123456789abcdef";

/** What the attacks would change: rows, faults, rate limit, clock. */
const snapshot = (e: TestEmulator) => JSON.stringify({ store: e.emu.store.toJSON(), faults: e.emu.faults.list(), rate: e.emu.rateLimit.get(), clock: e.emu.clock.offset });

async function populated(opts: Parameters<typeof emulator>[0] = {}): Promise<TestEmulator> {
  const e = await emulator({ settings: { speed: 0 }, ...opts });
  await e.client().post(`/v1/workspaces/${e.workspaceId}/projects`, { name: "kept" });
  return e;
}

describe("the attacks of the review, on an emulator on loopback without a token", () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await populated();
  });
  afterAll(async () => {
    await emu?.control("POST", "/reset");
    await emu?.close();
  });

  test("a web page cannot reset it by any spelling of the path: each is refused and nothing is wiped", async () => {
    const before = snapshot(emu);
    for (const target of ["/%5Femulator/reset", "/%5femulator/reset", "/_emulato%72/reset", "/_emulator/reset", "/_emulator/%72eset", "/%5F%65mulator/reset"]) {
      // What fetch(url, {method: "POST", mode: "no-cors"}) sends: no content type; and JSON marked cross-site.
      const simple = await raw(emu.baseUrl, "POST", target, CROSS_SITE);
      expect([target, simple.status, JSON.parse(simple.body).message]).toEqual([target, 415, expect.stringMatching(/^content-type: /)]);
      const json = await raw(emu.baseUrl, "POST", target, { ...CROSS_SITE, ...JSON_TYPE });
      expect([target, json.status, JSON.parse(json.body).message]).toEqual([target, 403, expect.stringMatching(/^sec-fetch-site: /)]);
    }
    expect(snapshot(emu)).toBe(before);
    expect((await emu.leftovers()).projects).toBe(1);
  });

  test("a cross-site GET of a control route that answers secrets is refused like a change is, however spelled", async () => {
    const secret = emu.storageKeys[0].secret;
    for (const target of ["/_emulator/storage/access-keys", "/%5Femulator/storage/access-keys", "/_emulator/storage/%61ccess-keys", "/_emulator/ui/api/summary", "/_emulator/ui/%61pi/summary", "/_emulator/mail/outbox"]) {
      for (const headers of [CROSS_SITE, { "sec-fetch-site": "same-site" }, { origin: "http://evil.example" }] as Record<string, string>[]) {
        const res = await raw(emu.baseUrl, "GET", target, headers);
        expect([target, headers, res.status]).toEqual([target, headers, 403]);
        expect(res.body).not.toContain(secret);
      }
    }
    // The emulator's own page (same origin) and tools (no Origin, no Sec-Fetch-Site) read it, by any spelling.
    const own = await raw(emu.baseUrl, "GET", "/%5Femulator/storage/access-keys", { "sec-fetch-site": "same-origin", origin: emu.baseUrl });
    expect([own.status, own.body]).toEqual([200, expect.stringContaining(secret)]);
    expect((await raw(emu.baseUrl, "GET", "/_emulator/ui/%61pi/summary")).status).toBe(200);
  });

  test("the dashboard's page and files are served to links from other sites, never framed", async () => {
    const page = await raw(emu.baseUrl, "GET", "/_emulator/ui/", { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" });
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
    expect(page.headers["x-frame-options"]).toBe("DENY");
    for (const target of ["/_emulator/ui/app.js", "/_emulator/ui/sign-in.html", "/_emulator/ui/api/summary", "/_emulator/health", "/_emulator/state"]) {
      expect([target, (await raw(emu.baseUrl, "GET", target)).headers["x-frame-options"]]).toEqual([target, "DENY"]);
    }
    // The platform's own surfaces are the platform's: a site may be framed, as on the platform.
    expect((await raw(emu.baseUrl, "GET", "/v1/me")).headers["x-frame-options"]).toBeUndefined();
  });
});

describe("the attacks of the review, on an emulator with a control token", () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await populated({ controlToken: TOKEN });
  });
  afterAll(async () => {
    await emu?.control("POST", "/reset");
    await emu?.close();
  });

  test("no spelling reads a secret or changes anything without the token: each answers 401, and the state is as it was", async () => {
    const before = snapshot(emu);
    const secret = emu.storageKeys[0].secret;
    const port = new URL(emu.baseUrl).port;
    const attempts: [string, string, string?][] = [
      ["GET", "/%5Femulator/storage/access-keys"],
      ["GET", "/%5femulator/storage/access-keys"],
      ["GET", "/_emulator/ui/%61pi/summary"],
      ["GET", "/_emulator/ui/%61pi/requests"],
      ["GET", "/_emulator/ui/%61pi/workspaces/x"],
      ["POST", "/%5Femulator/reset", ""],
      ["PUT", "/%5Femulator/rate-limit", JSON.stringify({ perMinute: 1 })],
      ["POST", "/%5Femulator/faults", JSON.stringify({ kind: "drop" })],
      ["POST", "/_emulato%72/time", JSON.stringify({ advanceMs: 86_400_000 })],
      // The absolute form a proxy would send, with this emulator's own address.
      ["GET", `http://127.0.0.1:${port}/_emulator/storage/access-keys`],
      ["POST", `http://127.0.0.1:${port}/_emulator/reset`, ""],
      ["POST", `HTTP://127.0.0.1:${port}/%5Femulator/reset`, ""],
    ];
    for (const [method, target, body] of attempts) {
      const res = await raw(emu.baseUrl, method, target, JSON_TYPE, body);
      expect([method, target, res.status, res.headers["www-authenticate"]]).toEqual([method, target, 401, expect.stringMatching(/^Bearer /)]);
      expect(res.body).not.toContain(secret);
    }
    expect(snapshot(emu)).toBe(before);
    // With the token, the same spellings reach the same routes.
    const keys = await raw(emu.baseUrl, "GET", `http://127.0.0.1:${port}/%5Femulator/storage/%61ccess-keys`, { "x-emulator-token": TOKEN });
    expect([keys.status, keys.body]).toEqual([200, expect.stringContaining(secret)]);
  });

  test("the dashboard's exemption covers its static files by their exact names, and nothing else", async () => {
    for (const target of ["/_emulator/ui/app.js", "/_emulator/ui/%61pp.js", "/_emulator/ui/sign-in.html", "/_emulator/ui/vendor/lit-html/lit-html.js", "/_emulator/ui/vendor/lit-html/directives/repeat.js"]) {
      expect([target, (await raw(emu.baseUrl, "GET", target)).status]).toEqual([target, 200]);
    }
    for (const target of ["/_emulator/ui/api", "/_emulator/ui/nope.js", "/_emulator/ui/sign-in", "/_emulator/ui/vendor/lit-html/nope.js", "/_emulator/ui/vendor/lit-html/../../package.json"]) {
      expect([target, (await raw(emu.baseUrl, "GET", target)).status]).toEqual([target, 401]);
    }
    const page = await raw(emu.baseUrl, "GET", "/_emulator/%75i/");
    expect([page.status, page.headers.location]).toEqual([303, "/_emulator/ui/sign-in.html"]);
  });
});

describe("request targets, before routing", () => {
  test("one spelling: unreserved escapes decoded, the others upper-cased; the query as sent; the absolute form on its own host", () => {
    expect(canonicalTarget("/%5Femulator/%72eset", "h")).toEqual({ url: "/_emulator/reset" });
    expect(canonicalTarget("/%5femulator/a%7e%2d%2E%41%30", "h")).toEqual({ url: "/_emulator/a~-.A0" });
    expect(canonicalTarget("/v1/suppressions/a%40b.test%3bx%25", "h")).toEqual({ url: "/v1/suppressions/a%40b.test%3Bx%25" });
    // Double encoding stays one level: %252F is a '%' and '2F', never a separator.
    expect(canonicalTarget("/_storage/r/b/a%252Fb", "h")).toEqual({ url: "/_storage/r/b/a%252Fb" });
    expect(canonicalTarget("/a%5Fb?x=%5F&y=%2F", "h")).toEqual({ url: "/a_b?x=%5F&y=%2F" });
    expect(canonicalTarget("http://127.0.0.1:4510/_emulator/health", "127.0.0.1:4510")).toEqual({ url: "/_emulator/health" });
    expect(canonicalTarget("HTTP://LocalHost:4510?x=1", "localhost:4510")).toEqual({ url: "/?x=1" });
    // Dot segments and doubled slashes are left to the router, which routes none of them (S3 keys hold them).
    expect(canonicalTarget("/_emulator/./reset//", "h")).toEqual({ url: "/_emulator/./reset//" });
  });

  test("refused: another host in the absolute form, an encoded control character, a bad escape, a fragment, other forms", () => {
    const refused = (target: string, host: string | null = "127.0.0.1:4510") => {
      const t = canonicalTarget(target, host ?? undefined);
      return "refused" in t ? t.refused : `accepted as ${t.url}`;
    };
    expect(refused("http://evil.example/_emulator/reset")).toMatch(/host \(evil\.example\) is not the Host header's/);
    expect(refused("http://127.0.0.1:4510@evil.example/_emulator/reset")).toMatch(/is not the Host header's/);
    expect(refused("http://127.0.0.1:4510/x", null)).toMatch(/is not the Host header's \(none\)/);
    expect(refused("ftp://127.0.0.1:4510/x")).toMatch(/must be a path/);
    expect(refused("*")).toMatch(/must be a path/);
    // An encoded '/' is kept, upper-cased: part of one segment to the router, never a separator.
    expect(refused("/_emulator%2freset")).toBe("accepted as /_emulator%2Freset");
    expect(refused("/_emulator/health%00")).toMatch(/encoded control character \(%00\)/);
    expect(refused("/_emulator/health%0a")).toMatch(/control character \(%0A\)/);
    expect(refused("/_emulator/%zzhealth")).toMatch(/malformed percent-escape at '%zz'/);
    expect(refused("/_emulator/health%4")).toMatch(/malformed/);
    expect(refused("/_emulator/reset#x")).toMatch(/fragment/);
  });

  test("the emulator answers those with 400 naming the rule, and nothing runs", async () => {
    const emu = await populated();
    try {
      const before = snapshot(emu);
      const port = new URL(emu.baseUrl).port;
      for (const target of [`http://evil.example:${port}/_emulator/reset`, "/%5Femulator/reset%00", "/_emulator/reset#x", "/_emulator/%zzreset"]) {
        const res = await raw(emu.baseUrl, "POST", target, JSON_TYPE, "");
        expect([target, res.status]).toEqual([target, 400]);
        expect(res.body).toMatch(/request target: |is not a valid url component/);
      }
      // An encoded '/' is no separator: the spelling reaches no route.
      expect((await raw(emu.baseUrl, "POST", "/_emulator%2Freset", JSON_TYPE, "")).status).toBe(404);
      expect(snapshot(emu)).toBe(before);
      // GraphQL refuses in its own shape (conventions §7.2).
      const gql = await raw(emu.baseUrl, "POST", `http://evil.example:${port}/graphql`, JSON_TYPE, JSON.stringify({ query: "{ __typename }" }));
      expect([gql.status, JSON.parse(gql.body).errors[0].message]).toEqual([200, expect.stringMatching(/^request target: /)]);
    } finally {
      await emu.control("POST", "/reset");
      await emu.close();
    }
  });
});

describe("the surfaces", () => {
  test("every route the router holds is on a surface; everything under /_emulator is the emulator's own", async () => {
    const emu = await startEmulator({ controlToken: TOKEN });
    try {
      const routes = registeredRoutes(emu.app);
      expect(routes.length).toBeGreaterThan(200);
      const by = (name: string) => routes.filter((r) => r.surface === name).map((r) => `${r.method} ${r.url}`);
      expect(by("control")).toEqual(expect.arrayContaining(["POST /_emulator/reset", "GET /_emulator/storage/access-keys", "PUT /_emulator/rate-limit", "HEAD /_emulator/state"]));
      expect(by("dashboard-api")).toEqual(expect.arrayContaining(["GET /_emulator/ui/api/summary", "GET /_emulator/ui/api/requests", "GET /_emulator/ui/api/buckets/:id/object"]));
      expect(by("dashboard").sort()).toEqual([
        "GET /_emulator/ui", "GET /_emulator/ui/", "GET /_emulator/ui/:file", "GET /_emulator/ui/vendor/lit-html/*",
        "HEAD /_emulator/ui", "HEAD /_emulator/ui/", "HEAD /_emulator/ui/:file", "HEAD /_emulator/ui/vendor/lit-html/*",
      ]);
      expect(by("dashboard-session").sort()).toEqual(["POST /_emulator/ui/sign-in", "POST /_emulator/ui/sign-out"]);
      expect(by("probe").sort()).toEqual(["GET /_emulator/health", "GET /_emulator/ready", "HEAD /_emulator/health", "HEAD /_emulator/ready"]);
      for (const name of ["api", "graphql", "s3", "upload", "export", "site"]) expect([name, by(name).length > 0]).toEqual([name, true]);
      for (const r of routes) {
        const plane = surfaceOfPattern(r.url)!.plane;
        expect([r.url, plane]).toEqual([r.url, r.url.startsWith("/_emulator") ? "emulator" : "platform"]);
      }
    } finally {
      await emu.close();
    }
  });

  test("a route registered on no surface stops the server from starting, naming the route", async () => {
    const app = Fastify();
    installGuard(app, {} as Emu);
    expect(() => app.get("/_nowhere/:id", async () => "x")).toThrow(/route GET \/_nowhere\/:id is on no surface of the gate/);
    await app.close();
  });

  test("a route with a fastify schema stops the server from starting: input is checked by zod in each handler", async () => {
    const emu = await startEmulator();
    const app = buildApp(emu.emu);
    try {
      app.get("/v1/with-schema", { schema: { querystring: { type: "object" } } }, async () => "x");
      await expect(app.ready()).rejects.toThrow(/check their input with zod/);
    } finally {
      await app.close();
      await emu.close();
    }
  });

  test("each surface says what it requires; only the emulator's own take the token or refuse other sites", () => {
    for (const s of SURFACES) {
      if (s.plane === "platform") expect([s.name, s.sameOrigin, s.token]).toEqual([s.name, "never", "none"]);
      else expect([s.name, s.sameOrigin === "never", s.json]).toEqual([s.name, false, true]);
    }
  });
});

describe("listeners", () => {
  test("the DNS server stays on loopback when --host is not, unless --dns-host asks; the startup line says what is exposed", async () => {
    const shared = await startEmulator({ host: "0.0.0.0", controlToken: TOKEN, dnsPort: 0 });
    try {
      expect(shared.dnsAddress).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(shared.exposed).toEqual([expect.stringMatching(/^http 0\.0\.0\.0:\d+: the API with its keys; the control API and the dashboard with the control token$/)]);
    } finally {
      await shared.close();
    }
    const asked = await startEmulator({ dnsPort: 0, dnsHost: "0.0.0.0" });
    try {
      expect(asked.dnsAddress).toMatch(/^0\.0\.0\.0:\d+$/);
      expect(asked.exposed).toEqual([expect.stringMatching(/^dns 0\.0\.0\.0:\d+: the simulated public DNS, to anyone/)]);
      // It answers over UDP, as it did.
      const port = Number(asked.dnsAddress!.split(":")[1]);
      const socket = createSocket("udp4");
      const query = Buffer.from("abcd01000001000000000000076578616d706c6504746573740000010001", "hex");
      const answer = await new Promise<Buffer>((ok) => {
        socket.once("message", ok);
        socket.send(query, port, "127.0.0.1");
      });
      socket.close();
      expect(answer.readUInt16BE(0)).toBe(0xabcd);
    } finally {
      await asked.close();
    }
    const local = await startEmulator({ dnsPort: 0 });
    try {
      expect(local.exposed).toBeUndefined();
    } finally {
      await local.close();
    }
  });
});
