// The gate holds for every spelling of a request (docs/security.md, "Path spellings"): for each
// control and dashboard route the router really holds, fast-check spells its path every way a URL
// may be written (any character percent-encoded in upper or lower case hex, dot segments, doubled
// and trailing slashes, the absolute form, `;` parameters) and sends it as a web page on another
// site would, with and without the control token, to a running emulator with a token and to one
// without, and as a tool without the token to the one with it. Whatever route the router then matched (read from the emulator's own log of the request,
// not from a copy of its rules), nothing changes, no secret is answered, no emulator answer may be
// framed, and a control or dashboard-JSON route is refused by the gate before its handler runs.
// GATE_FUZZ_RUNS sets the number of cases (10,000 by default), GATE_FUZZ_SEED repeats a run.
import fc from "fast-check";
import { Agent, request } from "node:http";
import type { LogEvent } from "../../emulator";
import { type RegisteredRoute, registeredRoutes, surfaceOfPattern } from "../../emulator/guard";
import { emulator, type TestEmulator } from "../support/emulator";

const RUNS = Number(process.env.GATE_FUZZ_RUNS ?? 10_000);
const SEED = process.env.GATE_FUZZ_SEED ? Number(process.env.GATE_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const TOKEN = "gate-fuzz-token-0123456789abcdef";
const OBJECT_SECRET = `object-secret-${SEED}-q9x`;
const MAIL_SECRET = `reset-link-secret-${SEED}-w7z`;

jest.setTimeout(Math.max(120_000, RUNS * 30));

/** The emulator's own record of which route each request reached, by request id. */
class Routes {
  private readonly seen = new Map<string, string>();
  private readonly waiting = new Map<string, (route: string) => void>();
  sink = (e: LogEvent) => {
    if (e.kind !== "http" || typeof e.requestId !== "string") return;
    const route = String(e.route);
    const wake = this.waiting.get(e.requestId);
    if (wake) {
      this.waiting.delete(e.requestId);
      wake(route);
    } else this.seen.set(e.requestId, route);
  };
  /** onResponse logs just after the answer is written; it is always written. */
  of(id: string): Promise<string> {
    const route = this.seen.get(id);
    if (route !== undefined) {
      this.seen.delete(id);
      return Promise.resolve(route);
    }
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`the emulator logged no route for ${id}`)), 10_000);
      this.waiting.set(id, (r) => {
        clearTimeout(timer);
        ok(r);
      });
    });
  }
}

interface Target {
  emu: TestEmulator;
  routes: Routes;
  secrets: string[];
  cookie?: string;
  /** Everything a control route could change, as JSON; `kept` is its value before the first case. */
  fingerprint(): string;
  kept: string;
}

const targets: Record<"open" | "shared", Target> = {} as never;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

async function start(controlToken: string | undefined): Promise<Target> {
  const routes = new Routes();
  const emu = await emulator({ settings: { speed: 0 }, log: routes.sink, ...(controlToken ? { controlToken } : {}) });
  const api = emu.client();
  await api.post(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: "fuzz-kept" });
  await emu.control("POST", "/storage/objects", { bucket: "fuzz-kept", key: "secret.txt", content: OBJECT_SECRET });
  await emu.client(emu.keys.sandbox).post("/v1/emails", {
    from: `app@${emu.testMailDomain}`, to: `delivered@${emu.testMailDomain}`, subject: "Reset", text: `Reset: https://app.test/r/${MAIL_SECRET}`,
  });
  await emu.control("POST", "/faults", { kind: "latency", latencyMs: 0, path: "/v1/fuzz-kept" });
  await emu.control("PUT", "/rate-limit", { perMinute: 1_000_000 });
  await emu.control("POST", "/dns/delegations", { domain: "fuzz-kept.test" });
  await api.get("/v1/me");
  let cookie: string | undefined;
  if (controlToken) {
    const res = await fetch(`${emu.baseUrl}/_emulator/ui/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: controlToken }) });
    cookie = res.headers.get("set-cookie")!.split(";")[0];
  }
  const secrets = [
    ...Object.values(emu.keys), emu.apiKey, emu.login.password, ...emu.storageKeys.map((k) => k.secret), OBJECT_SECRET, MAIL_SECRET,
    ...(controlToken ? [controlToken, cookie!.split("=")[1]] : []),
  ];
  const e = emu.emu;
  const fingerprint = () => JSON.stringify({
    store: e.store.toJSON(), faults: e.faults.list(), rate: e.rateLimit.get(), clock: e.clock.offset,
    dns: [e.settings.dnsPropagationMs, e.settings.delegations], counted: e.counters.get("GET /v1/me"),
  });
  return { emu, routes, secrets, cookie, fingerprint, kept: fingerprint() };
}

let routes: RegisteredRoute[];
beforeAll(async () => {
  console.log(`gate fuzz: ${RUNS} cases, seed ${SEED} (GATE_FUZZ_SEED=${SEED} GATE_FUZZ_RUNS=${RUNS} repeats this run)`);
  [targets.open, targets.shared] = await Promise.all([start(undefined), start(TOKEN)]);
  // What the router holds: the shared emulator's table (its sign-in routes included).
  routes = registeredRoutes(targets.shared.emu.app).filter((r) => surfaceOfPattern(r.url)?.plane === "emulator");
});
afterAll(async () => {
  agent.destroy();
  for (const t of Object.values(targets)) {
    await t?.emu.control("POST", "/reset");
    await t?.emu.close();
  }
});

/** A value for each parameter of a pattern: real names where the route serves files, anything elsewhere. */
const FILLS: Record<string, string[]> = {
  file: ["app.js", "index.html", "sign-in.html", "style.css", "api", "nope.js", "..", "summary"],
  "*": ["lit-html.js", "directives/repeat.js", "../../package.json", "x.js", ""],
  default: ["fuzz-kept.test", "abc", "00000000-0000-0000-0000-000000000000", "..", "fuzz-kept"],
};
const fill = (pattern: string, pick: number) =>
  pattern.replace(/:(\w+)|\*/g, (m, name: string | undefined) => {
    const pool = FILLS[name ?? "*"] ?? FILLS.default;
    return pool[pick % pool.length];
  });

/** How a web page on another site marks its requests (each browser sends one or more of these). */
const OTHER_SITES: Record<string, string>[] = [
  { "sec-fetch-site": "cross-site", origin: "http://evil.example" },
  { "sec-fetch-site": "cross-site" },
  { "sec-fetch-site": "same-site", origin: "http://127.0.0.1:1" },
  { origin: "http://evil.example" },
  { origin: "null" },
  { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "empty" },
];
const CONTENT_TYPES = [undefined, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json"];
const BODIES = ["", "{}", '{"kind":"drop"}', '{"perMinute":1}', '{"advanceMs":86400000}', '{"domain":"fuzz-new.test"}', '{"token":"not-the-token-0123456789"}'];

/** Now and then: each change of spelling is made in about one case in five, so most cases still reach a route. */
const sometimes = <T>(arb: fc.Arbitrary<T>, odds = 4) => fc.oneof({ arbitrary: fc.constant(null), weight: odds }, { arbitrary: arb, weight: 1 });
const spelling = fc.record({
  encodeAll: sometimes(fc.constant(true), 9),
  encode: fc.array(fc.record({ at: fc.nat(), lower: fc.boolean() }), { maxLength: 6 }),
  lower: fc.boolean(),
  dot: sometimes(fc.tuple(fc.nat(), fc.constantFrom("./", "x/../", "%2e/", "%2E%2E/", ".%2e/", "../", "_emulator/../"))),
  double: sometimes(fc.nat()),
  trailing: sometimes(fc.constant(true)),
  semicolon: sometimes(fc.tuple(fc.nat(), fc.constantFrom(";x", ";jsessionid=1", "%3Bx", ";"))),
  absolute: sometimes(fc.constantFrom("http://HOST", "HTTP://HOST", "http://HOST", "http://evil.example", "http://HOST@evil.example", "https://HOST")),
  query: fc.constantFrom("", "", "", "?x=1", "?workspaceId=x", "?"),
});
type Spelling = (typeof spelling) extends fc.Arbitrary<infer T> ? T : never;

const hex = (c: string, lower: boolean) => {
  const h = c.charCodeAt(0).toString(16).padStart(2, "0");
  return `%${lower ? h : h.toUpperCase()}`;
};

/** The path spelled as asked; the leading `/` is kept, as every origin-form target has one. */
function spell(path: string, s: Spelling, host: string): string {
  const chars = [...path.slice(1)];
  const encoded = new Map<number, boolean>();
  if (s.encodeAll) chars.forEach((_, i) => encoded.set(i, s.lower));
  for (const e of s.encode) if (chars.length) encoded.set(e.at % chars.length, e.lower);
  let out = chars.map((c, i) => (encoded.has(i) ? hex(c, encoded.get(i)!) : c));
  const slashes = () => out.map((c, i) => (c === "/" ? i : -1)).filter((i) => i >= 0);
  if (s.semicolon) {
    // At the end of a segment: before a `/`, or at the end.
    const ends = [...slashes(), out.length];
    const at = ends[s.semicolon[0] % ends.length];
    out = [...out.slice(0, at), s.semicolon[1], ...out.slice(at)];
  }
  if (s.dot) {
    const starts = [0, ...slashes().map((i) => i + 1)];
    const at = starts[s.dot[0] % starts.length];
    out = [...out.slice(0, at), s.dot[1], ...out.slice(at)];
  }
  if (s.double !== null) {
    const starts = [0, ...slashes().map((i) => i + 1)];
    const at = starts[s.double % starts.length];
    out = [...out.slice(0, at), "/", ...out.slice(at)];
  }
  let target = `/${out.join("")}${s.trailing ? "/" : ""}${s.query}`;
  if (s.absolute) target = s.absolute.replace("HOST", host) + target;
  return target;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(base: string, method: string, target: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const url = new URL(base);
  return new Promise((ok, fail) => {
    // A length always: Node sends a DELETE's body neither chunked nor measured otherwise.
    const sized = body === "" ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
    const req = request({ agent, host: url.hostname, port: url.port, method, path: target, headers: sized }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => ok({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", fail);
    req.end(body === "" ? undefined : body);
  });
}

/** The gate's own refusals: no handler ran. */
const GATE_REFUSAL = /^(content-type: |sec-fetch-site: |origin: |request target: |host: |This emulator needs its control token)/;

const stats = { cases: 0, reached: 0, gateRefused: 0, unmatched: 0, byStatus: new Map<number, number>() };
const reachedRoutes = new Set<string>();

const caseArb = (n: number) => fc.record({
  on: fc.constantFrom<"open" | "shared">("open", "shared"),
  route: fc.nat(n - 1),
  pick: fc.nat(),
  spelling,
  // One more than the browsers' markings: a tool on the network, which sends none of them.
  site: fc.nat(OTHER_SITES.length),
  credential: fc.constantFrom("none", "header", "bearer", "cookie", "wrong"),
  contentType: fc.nat(CONTENT_TYPES.length - 1),
  body: fc.nat(BODIES.length - 1),
});
type Case = (ReturnType<typeof caseArb>) extends fc.Arbitrary<infer T> ? T : never;

async function check(c: Case): Promise<void> {
  const t = targets[c.on];
  const route = routes[c.route];
  const path = fill(route.url, c.pick);
  const host = new URL(t.emu.baseUrl).host;
  const target = spell(path, c.spelling, host);
  const id = `fuzz-${stats.cases++}`;
  // A tool may change an emulator without a token, or one whose token it holds: it is sent to the
  // shared emulator without the token (or with a wrong one), and is a page's request elsewhere.
  const tool = c.site === OTHER_SITES.length && c.on === "shared";
  const credential = tool && c.credential !== "none" ? "wrong" : c.credential;
  const headers: Record<string, string> = { host, "x-request-id": id, ...(tool ? {} : OTHER_SITES[c.site % OTHER_SITES.length]) };
  if (credential === "header") headers["x-emulator-token"] = TOKEN;
  if (credential === "bearer") headers.authorization = `Bearer ${TOKEN}`;
  if (credential === "cookie" && targets.shared.cookie) headers.cookie = targets.shared.cookie;
  if (credential === "wrong") headers["x-emulator-token"] = "not-the-token-0123456789";
  const type = CONTENT_TYPES[c.contentType];
  if (type) headers["content-type"] = type;
  const body = route.method === "GET" || route.method === "HEAD" ? "" : BODIES[c.body];
  const res = await send(t.emu.baseUrl, route.method, target, headers, body);
  // Refused by the router itself (a malformed path): no hook, no handler, no log.
  const routerRefusal = /"code":"FST_ERR_(BAD_URL|MAX_PARAM_LENGTH)"/.test(res.body);
  const matched = routerRefusal ? "unmatched" : await t.routes.of(id);
  const where = `${route.method} ${target} (route ${route.method} ${route.url}; matched ${matched}; ${JSON.stringify(headers)}) -> ${res.status} ${res.body.slice(0, 200)}`;
  stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);

  expect([where, res.status < 500]).toEqual([where, true]);
  expect([where, t.fingerprint() === t.kept]).toEqual([where, true]);
  const answered = res.body + JSON.stringify(res.headers);
  expect([where, t.secrets.filter((s) => answered.includes(s))]).toEqual([where, []]);

  if (matched === "unmatched") return void stats.unmatched++;
  if (matched === route.url) {
    stats.reached++;
    reachedRoutes.add(`${c.on} ${route.method} ${route.url}`);
  }
  const surface = surfaceOfPattern(matched);
  if (surface?.plane !== "emulator") return;
  expect([where, res.headers["x-frame-options"]]).toEqual([where, "DENY"]);
  // The dashboard's page and files hold no data: a page may open them (and the page asks for the token itself).
  const fileRead = surface.name === "dashboard" && (route.method === "GET" || route.method === "HEAD");
  if (fileRead) return;
  // Probes and signing in take no token: a tool reaches them.
  if (tool && surface.token === "none") return;
  if (route.method === "HEAD") expect([where, [400, 401, 403, 415].includes(res.status)]).toEqual([where, true]);
  else expect([where, JSON.parse(res.body).message]).toEqual([where, expect.stringMatching(GATE_REFUSAL)]);
  stats.gateRefused++;
}

test("no spelling of a control or dashboard route, sent from another site or without the token, changes anything or answers a secret", async () => {
  expect(routes.length).toBeGreaterThan(40);
  expect(routes.map((r) => r.url)).toEqual(expect.arrayContaining(["/_emulator/reset", "/_emulator/storage/access-keys", "/_emulator/ui/api/summary", "/_emulator/ui/:file"]));
  const plain: Spelling = { encodeAll: null, encode: [], lower: false, dot: null, double: null, trailing: null, semicolon: null, absolute: null, query: "" };
  // Each route as written, on both emulators, before the generated cases.
  const examples: [Case][] = routes.flatMap((_, i) => (["open", "shared"] as const).map((on): [Case] => [{
    on, route: i, pick: 0, spelling: plain, site: 0, credential: on === "shared" ? "header" : "none", contentType: CONTENT_TYPES.length - 1, body: 1,
  }]));
  const started = Date.now();
  await fc.assert(fc.asyncProperty(caseArb(routes.length), check), { numRuns: RUNS, seed: SEED, examples, endOnFailure: true });
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `gate fuzz: ${stats.cases} requests in ${seconds.toFixed(1)} s; ${stats.reached} reached the route they spelled, ` +
    `${stats.gateRefused} refused by the gate, ${stats.unmatched} matched no route; statuses ${JSON.stringify(Object.fromEntries(stats.byStatus))}`,
  );
  // Every route was reached as written (the examples), on the emulator that has it.
  const missing = routes.filter((r) => !reachedRoutes.has(`shared ${r.method} ${r.url}`));
  expect(missing).toEqual([]);
  // The spellings are not all refused before routing: a good share reach their route.
  expect(stats.reached).toBeGreaterThan(stats.cases / 10);
});
