// Check and the API agree: for each resource, fast-check generates inputs (edge cases at every
// stated limit among them) and each must either pass `check` and then be created by the handler's
// own create against the emulator, or fail both. A disagreement is a rule only `up` would find (or
// a rule check invents). The requests run in-process through the emulator's route table
// (test/support/inject.ts), so a few thousand cases per resource take seconds.
//
// What is left out, on purpose: inputs the API never sees (timeouts, waitForDeploy, forceDestroy,
// a site's path); ids of parents (always ones that exist: a missing one is a 404 at up, not a
// rule); and data check does not have: a well-formed region key the catalogue does not list, a
// FREE tier in a region without one (GET /v1/regions says which), a record's full name outside
// its zone or naming the apex (check has the zone's id, not its name), all refused at `up` with
// the property named. A
// bucket's `region: ""` is not generated: the API reads an empty query value as none, and check
// refuses it as a mistake. The verifications (DnsZoneVerification, MailDomainVerification,
// CustomDomainVerification) send no body: the only input the API sees is the id they verify.
import fc from "fast-check";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getGlobalDispatcher, setGlobalDispatcher } from "undici";
import { parse } from "../../emulator/http";
import { checkDomainBody, createDomainBody } from "../../emulator/models/mail";
import { createServiceBody } from "../../emulator/models/service-bodies";
import { checkServiceBody } from "../../emulator/models/services";
import { PlatformError } from "../../emulator/errors";
import { ApiError } from "../../provider/client";
import { resources } from "../../provider/resources";
import { type Context, ResourceInitError } from "../../provider/resources/framework";
import { emulator, type TestEmulator } from "../support/emulator";
import { type Answer, RouteDispatcher, routeClient } from "../support/inject";

jest.setTimeout(120_000);

const RUNS = Number(process.env.CHECK_VS_API_RUNS ?? 2000);
const SEED = process.env.CHECK_VS_API_SEED ? Number(process.env.CHECK_VS_API_SEED) : 20_260_101;

// ---- generators ----
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = `${LOWER}${LOWER.toUpperCase()}${DIGITS}`;
const PRINTABLE = `${ALNUM} .,;:!?'"()[]{}<>/\\|@#$%^&*-_+=~\`é€`;

/**
 * A string at, just under and just over each stated length (or anywhere up to them), mostly of
 * `chars`, with now and then one of `bad` somewhere, the first character included.
 */
function text(chars: string, lengths: number[], bad = ""): fc.Arbitrary<string> {
  const max = Math.max(...lengths) + 1;
  // Long strings cost time to build and send: a stated limit is hit one time in four, a long one
  // (over 10,000 characters) one time in twenty.
  const len = fc.oneof(
    { arbitrary: fc.constantFrom(...lengths.flatMap((n) => [n - 1, n, n + 1]).filter((n) => n >= 0)), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: Math.min(max, 80) }), weight: max > 10_000 ? 19 : 3 },
  );
  const pool = chars + bad;
  return fc
    .record({ len, fill: fc.constantFrom(...chars), mix: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...pool)), { maxLength: 3 }), first: fc.option(fc.constantFrom(...pool), { freq: 4 }) })
    .map(({ len, fill, mix, first }) => {
      if (len === 0) return "";
      const a = new Array<string>(len).fill(fill);
      for (const [i, c] of mix) a[i % len] = c;
      if (first !== null) a[0] = first;
      return a.join("");
    });
}

/** `arb` or absent (undefined), absent about one time in `freq`. */
const opt = <T>(arb: fc.Arbitrary<T>, freq = 3) => fc.option(arb, { nil: undefined, freq });
/** Mostly absent: present about one time in `one` (so that most cases break at most one rule). */
const rare = <T>(arb: fc.Arbitrary<T>, one = 6) => fc.oneof({ arbitrary: fc.constant(undefined), weight: one - 1 }, { arbitrary: arb, weight: 1 });
/** One of the given values, or now and then any other value of the same arbitrary. */
const pick = <T>(values: T[], other?: fc.Arbitrary<T>) =>
  other ? fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 4 }, { arbitrary: other, weight: 1 }) : fc.constantFrom(...values);
/** Integers at and around the limits, and a fraction. */
const int = (min: number, max: number) => fc.constantFrom(min - 1, min, min + 1, max - 1, max, max + 1, 1.5, Math.round((min + max) / 2));

const name = () => text(`${ALNUM} ._-`, [1, 2, 64], "/!é@#\t");
const REGIONS = ["af-west-1", "af-south-1", "eu-central-1", "us-east-1"];
const region = (empty = true) => pick([...REGIONS, "EU-CENTRAL-1", "eu_central_1", "-west", "eu-central-1 ", ...(empty ? [""] : [])]);
const label = () => text(`${LOWER}${DIGITS}-`, [1, 63], `${LOWER.toUpperCase()}_.*é`);
const domain = () =>
  fc.oneof(
    { arbitrary: fc.tuple(fc.array(label(), { minLength: 1, maxLength: 3 }), pick(["example.com", "test", "co.uk", "com"])).map(([ls, tld]) => [...ls, tld].join(".")), weight: 6 },
    { arbitrary: pick(["example.com", "WWW.Example.COM", "www.example.com.", "https://www.example.com", "www.example.com:8080", "www.example.com/path", "a_b.example.com", "*.example.com", "localhost", "192.0.2.1", "", "..", "a..b.com", `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(59)}.com`, `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(60)}.com`]), weight: 3 },
  );

// ---- the emulator, and each resource's parents ----
let emu: TestEmulator;
let ctx: Context;
let answers: Answer[];
let site: string;
const parents: Record<string, string> = {};

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  const c = routeClient(emu);
  answers = c.answers;
  ctx = { client: c.client, workspaceId: async () => emu.workspaceId, log: () => {} };
  const project = await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "parents" });
  const env = await ctx.client.create<any>(`/v1/projects/${project.id}/environments`, { name: "production" });
  const web = await ctx.client.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
  const zone = await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/dns-zones`, { name: "props.test" });
  Object.assign(parents, { projectId: project.id, environmentId: env.id, serviceId: web.id, zoneId: zone.id });
  site = mkdtempSync(join(tmpdir(), "check-vs-api-"));
  writeFileSync(join(site, "index.html"), "<h1>site</h1>");
});
afterAll(async () => {
  rmSync(site, { recursive: true, force: true });
  await emu?.close();
});

// ---- the comparison ----
const REFUSED = [400, 413, 422];

interface Outcome {
  check: boolean;
  api: boolean;
  why: string;
}

/**
 * Check's verdict, and the API's on what the handler's create sends for the same inputs. What was
 * made is deleted again, unless `keep` (a custom domain's delete redeploys its service).
 */
async function outcome(kind: string, inputs: Record<string, unknown>, keep = false): Promise<Outcome> {
  const def = resources[kind];
  const checked = await def.check!({}, inputs);
  const ok = !checked.failures?.length;
  answers.length = 0;
  let made: { id: string; outs: Record<string, unknown> } | undefined;
  let error: unknown;
  try {
    made = await def.create(ctx, (ok ? checked.inputs : inputs) as never);
  } catch (err) {
    error = err;
    if (err instanceof ResourceInitError) made = { id: err.id, outs: err.properties };
  }
  if (made && !keep) await def.delete?.(ctx, made.id, made.outs as never).catch(() => undefined);
  // Refused: a request answered 400 (413, 422), or a rule of the handler's own failed (an error no
  // answer explains). A conflict or a missing object is state, not a rule: accepted.
  const refusedBy = answers.find((a) => REFUSED.includes(a.status));
  const explained = error instanceof ApiError || (error instanceof ResourceInitError && (answers.at(-1)?.status ?? 0) >= 400);
  const ownRule = error !== undefined && !explained;
  const api = !refusedBy && !ownRule;
  const why = ok ? (refusedBy ? `${(error as Error)?.message}` : ownRule ? `create: ${(error as Error).message}` : "") : checked.failures!.map((f) => f.reason).join("; ");
  return { check: ok, api, why };
}

/**
 * For resources whose create is costly (a service's deploy and database, a mail domain's DKIM key):
 * the body the handler's create sends, judged by the emulator's own create rules (those that read
 * no state), in-process.
 */
const byRules = (kind: string, rules: (body: unknown) => void) => async (inputs: Record<string, unknown>): Promise<Outcome> => {
  const def = resources[kind];
  const checked = await def.check!({}, inputs);
  const ok = !checked.failures?.length;
  let body: unknown;
  const capture = { ...ctx, client: { create: async (_path: string, b: unknown) => ((body = b), Promise.reject(new Error("captured"))) } } as unknown as Context;
  await def.create(capture, (ok ? checked.inputs : inputs) as never).catch(() => undefined);
  let why = ok ? "" : checked.failures!.map((f) => f.reason).join("; ");
  let api = true;
  try {
    rules(body);
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    api = false;
    if (ok) why = err.message;
  }
  return { check: ok, api, why };
};

/** Runs `RUNS` cases; every disagreement fails the test with the smallest inputs fast-check finds. */
async function agree(
  kind: string,
  inputs: fc.Arbitrary<Record<string, unknown>>,
  judge = (x: Record<string, unknown>) => outcome(kind, x),
  runs = RUNS,
): Promise<void> {
  let both = 0;
  let last = "";
  const result = await fc.check(
    fc.asyncProperty(inputs, async (x) => {
      const o = await judge(x);
      if (o.check && o.api) both++;
      if (o.check === o.api) return true;
      last = `check ${o.check ? "accepts" : "refuses"} what the API ${o.api ? "accepts" : "refuses"}: ${o.why}`;
      return false;
    }),
    { numRuns: runs, seed: SEED },
  );
  // The smallest inputs fast-check found, and what each side said of them.
  expect(result.failed ? { kind, inputs: result.counterexample?.[0], disagreement: last } : undefined).toBeUndefined();
  // Both sides of each rule are exercised: some inputs pass, and some fail.
  expect(both).toBeGreaterThan(runs / 20);
  expect(both).toBeLessThan(runs - runs / 20);
}

// ---- one property per resource ----
test("Project", () =>
  agree("Project", fc.record({
    name: name(),
    displayName: opt(text(PRINTABLE, [128])),
    description: opt(text(PRINTABLE, [1024])),
    region: opt(region()),
  })));

test("Environment", () => agree("Environment", fc.record({ projectId: fc.constant(parents.projectId), name: name() })));

const TYPES = ["WEB", "STATIC", "CRON", "POSTGRES", "MYSQL", "MARIADB", "MONGODB", "REDIS", "VALKEY"];
const CRONS = ["*/5 * * * *", "0 0 * * *", "0 3 * * MON-FRI", "@daily", "61 * * * *", "* * * *", "0 0 31 2 *", "3-2-1 * * * *", "*/0 * * * *", "0 0 * JAN,DEC SUN"];
const envVar = fc.record({
  key: text(`${ALNUM}_`, [1, 255], "-. $"),
  value: text(PRINTABLE, [0, 32_768]),
  scope: opt(pick(["ALL", "PROD", "UAT", "DEV", "all", "STAGING"])),
  secret: opt(fc.boolean()),
});
const secretFile = fc.record({
  path: pick(["/etc/app.json", "config/a.yml", "../etc/passwd", "/a/../b", "", "with space", "/ok_path-1.txt"], text(`${ALNUM}_./-`, [1, 255], " ~")),
  content: text(PRINTABLE, [0, 512 * 1024]),
});
test("Service", () =>
  agree(
    "Service",
    fc.record({
      environmentId: fc.constant(parents.environmentId),
      name: fc.oneof({ arbitrary: fc.constant("web"), weight: 2 }, { arbitrary: name(), weight: 1 }),
      type: fc.oneof({ arbitrary: fc.constant("WEB"), weight: 6 }, { arbitrary: pick([...TYPES, "web", "LAMBDA"]), weight: 4 }),
      region: rare(region()),
      tier: rare(pick(["STARTER", "STANDARD", "PRO", "starter", "XL"])),
      sourceType: rare(pick(["CONTAINER_IMAGE", "PUBLIC_GIT", "REPO_APP", "DOCKER"])),
      image: fc.oneof({ arbitrary: fc.constant("nginx:1.27"), weight: 6 }, { arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: text(`${ALNUM}:/._-`, [1, 512], " "), weight: 2 }),
      gitUrl: rare(pick(["https://github.com/acme/web.git", "http://github.com/acme/web", "https://git host/x", "git@github.com:acme/web.git"])),
      repoFullName: rare(pick(["acme/web", "acme", "acme/web/extra", "ac me/web", "a.b-c/d_e"])),
      imageCommand: rare(text(PRINTABLE, [1024])),
      installationId: rare(text(ALNUM, [128])),
      branch: rare(text(`${ALNUM}/-_.`, [255])),
      rootDir: rare(text(`${ALNUM}/-_.`, [255])),
      monorepoStrategy: rare(pick(["ISOLATED", "WORKSPACE", "isolated"])),
      watchPaths: rare(fc.array(text(`${ALNUM}/*._-`, [255]), { maxLength: 51 })),
      port: rare(int(1, 65_535)),
      healthCheckPath: rare(pick(["/", "/healthz", "healthz", ""], text(`${ALNUM}/`, [255]).map((s) => `/${s}`))),
      buildCommand: rare(text(PRINTABLE, [1024])),
      startCommand: rare(text(PRINTABLE, [1024])),
      runtimeVersion: rare(text(`${ALNUM}.`, [64])),
      staticOutputDir: rare(text(`${ALNUM}/._-`, [255])),
      staticSpa: rare(fc.boolean()),
      subdomain: rare(text(`${LOWER}${DIGITS}-`, [1, 63], "A_.")),
      schedule: rare(pick(CRONS), 4),
      command: rare(text(PRINTABLE, [4096])),
      envVars: rare(fc.array(envVar, { maxLength: 3 })),
      secretFiles: rare(fc.array(secretFile, { maxLength: 2 })),
      dbName: rare(text(`${ALNUM}_`, [63], "-$"), 10),
      dbUser: rare(text(`${ALNUM}_`, [63], "-$"), 10),
      dbPassword: rare(text(PRINTABLE, [12, 128]), 10),
      connectionEnvName: rare(text(`${ALNUM}_`, [255], "-"), 10),
      injectConnectionUrl: rare(fc.boolean(), 10),
      waitForDeploy: fc.constant(false),
    }),
    byRules("Service", (body) => checkServiceBody(parse(createServiceBody, body))),
  ));

test("EnvVar", () =>
  agree("EnvVar", fc.record({ serviceId: fc.constant(parents.serviceId), key: envVar.map((v) => v.key), value: text(PRINTABLE, [0, 32_768]), scope: opt(pick(["ALL", "PROD", "UAT", "DEV", "all", "STAGING"])), secret: opt(fc.boolean()) })));

test("SecretFile", () => agree("SecretFile", secretFile.map((f) => ({ serviceId: parents.serviceId, ...f }))));

test("DnsZone", () => agree("DnsZone", fc.record({ name: domain() })));

const RECORD_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "CAA", "a", "cname", "PTR", "SOA", ""];
const CONTENTS = [
  "192.0.2.10", "256.1.1.1", "1.2.3", "2001:db8::1", "2001:db8::g", "::1", "mail.example.net", "mail.example.net.", "bad_host.example", "-x.example.com",
  "props.test", "www", "10 5 sip.example.com", "10 sip", "0 issue \"letsencrypt.org\"", "0 bogus x", "\"quoted\" \"split\"", "v=spf1 -all", " ", "@",
];
const recordSpec = (full = true) => fc.record({
  name: pick(["@", "www", "a.b", ...(full ? ["www.props.test.", "WWW.Props.Test."] : []), "", ".", "*", "*.x", "under_score", "UPPER", "sel._domainkey", "a..b"], label()),
  type: pick(RECORD_TYPES),
  content: pick(CONTENTS, text(PRINTABLE, [255, 4096])),
  ttl: opt(int(60, 86_400), 2),
  priority: opt(int(0, 65_535), 2),
});
test("DnsRecord", () => agree("DnsRecord", recordSpec().map((r) => ({ zoneId: parents.zoneId, ...r }))));

// Relative names only: a record written once relative and once as a full name is the same record,
// which only the zone's name shows.
test("DnsRecordSet", () => agree("DnsRecordSet", fc.record({ zoneId: fc.constant(parents.zoneId), records: fc.array(recordSpec(false), { maxLength: 3 }) })));

test("MailDomain", () =>
  agree("MailDomain", fc.record({ name: domain(), region: opt(region()) }), byRules("MailDomain", (body) => checkDomainBody(parse(createDomainBody, body)))));

test("Suppression", () =>
  agree("Suppression", fc.record({
    address: pick(["a@b.co", "A@B.CO", "no-at", "@b.co", "a@", "a b@c.de", "a@b", "a.b+c@d-e.example", `${"a".repeat(64)}@b.co`, `${"a".repeat(65)}@b.co`, "a@@b.co"], text(`${ALNUM}.@+-`, [3, 254])),
  })));

const corsRule = fc.record({
  allowedMethods: fc.array(pick(["GET", "PUT", "POST", "DELETE", "HEAD", "get", "PATCH"]), { maxLength: 3 }),
  allowedOrigins: fc.array(pick(["*", "https://shop.example.com", ""]), { maxLength: 2 }),
  allowedHeaders: opt(fc.array(pick(["content-type", "x-a", ""]), { maxLength: 2 })),
  exposeHeaders: opt(fc.array(pick(["etag", ""]), { maxLength: 2 })),
  maxAgeSeconds: opt(fc.constantFrom(-1, 0, 600, 1.5, 86_400)),
});
test("Bucket", () =>
  agree("Bucket", fc.record({
    name: text(`${LOWER}${DIGITS}.-`, [3, 63], "A_ "),
    region: opt(region(false)),
    visibility: opt(pick(["PRIVATE", "PUBLIC_READ", "private", "PUBLIC"])),
    corsRules: opt(fc.oneof({ arbitrary: fc.array(corsRule, { maxLength: 3 }), weight: 5 }, { arbitrary: fc.array(corsRule, { minLength: 100, maxLength: 101 }), weight: 1 })),
    policy: opt(pick(['{"version":"2026-01-01","statements":[]}', "{nope", "[1,2]", "\"text\"", "{}", "null"])),
    forceDestroy: fc.constant(true),
  })));

test("StaticSite", async () => {
  // The upload's presigned PUT goes through undici's global dispatcher: route it in-process too.
  const before = getGlobalDispatcher();
  setGlobalDispatcher(new RouteDispatcher(emu.emu, answers));
  try {
    await agree("StaticSite", fc.record({
      path: fc.constant(site),
      environmentId: opt(pick([parents.environmentId, "production", "", `${parents.environmentId}x`, "7d3c1a0e5b2f4c8d9e6a1f2b3c4d5e6f"])),
      // (not "web": the parent environment's service holds that name, which is state, not a rule)
      name: opt(name().filter((n) => n.toLowerCase() !== "web")),
      indexPath: opt(pick(["index.html", "docs/home.html", "/index.html", "../x.html", "app.js", "a b.html", "index.HTM", ""], text(`${ALNUM}/._-`, [255]).map((s) => `${s}.html`))),
      spaFallback: opt(fc.boolean()),
    }), undefined, RUNS / 2); // each case uploads, publishes and deletes a site: half as many

  } finally {
    setGlobalDispatcher(before);
  }
});

test("CustomDomain", () =>
  agree("CustomDomain", fc.record({ serviceId: fc.constant(parents.serviceId), domain: domain() }), (x) => outcome("CustomDomain", x, true)));
