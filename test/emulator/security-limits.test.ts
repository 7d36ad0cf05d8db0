// No input grows the emulator's memory or work without a cap: the rate-limit and sign-in maps
// forget idle entries and hold at most a fixed number, a bucket's CORS patterns hold one `*` and
// are matched without a RegExp, and GraphQL refuses documents too deep or too costly (§7.2).
import { randomBytes } from "node:crypto";
import { getIntrospectionQuery } from "graphql";
import { failure } from "../support/helpers";
import { IdleMap } from "../../emulator/idle-map";
import { MAX_BUCKETS, RateLimiter } from "../../emulator/rate-limit";
import { login, loginAddressesTracked, MAX_LOGIN_ADDRESSES } from "../../emulator/models/sessions";
import { matches } from "../../emulator/s3/cors";
import { GRAPHQL_LIMITS } from "../../emulator/graphql/limits";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());

const randomKey = () => randomBytes(12).toString("hex");

test("rate-limit buckets: 30,000 random Authorization headers (three times the cap) hold at most MAX_BUCKETS; idle buckets expire", () => {
  const limiter = new RateLimiter();
  limiter.set({ perMinute: 60, burst: 5 });
  const t0 = 1_000_000;
  for (let i = 0; i < 5; i++) expect(limiter.take("Bearer mine", t0)).toBe(0);
  for (let i = 0; i < 3 * MAX_BUCKETS; i++) {
    limiter.take(`Bearer ${randomKey()}`, t0 + 1);
    // A key in use keeps its bucket, and its limit, through the flood.
    if (i % 1_000 === 0) expect(limiter.take("Bearer mine", t0 + 1)).toBeGreaterThan(0);
  }
  expect(limiter.size).toBe(MAX_BUCKETS);
  // Once a bucket would have refilled (5 tokens at 1/s), it is the same as a new one and is dropped.
  expect(limiter.take("Bearer later", t0 + 2 + 5_000)).toBe(0);
  expect(limiter.size).toBe(1);
});

test("sign-in attempts: 30,000 random addresses (three times the cap) hold at most MAX_LOGIN_ADDRESSES; an idle minute forgets them", async () => {
  const e = emu.emu;
  for (let i = 0; i < 3 * MAX_LOGIN_ADDRESSES; i++) {
    try {
      login(e, { email: `${randomKey()}@example.test`, password: "x" });
    } catch {
      // Wrong email or password: the attempt is counted all the same.
    }
  }
  expect(loginAddressesTracked(e)).toBe(MAX_LOGIN_ADDRESSES);
  // The throttle still holds for an address being tried.
  for (let i = 0; i < 10; i++) expect(() => login(e, { email: "target@example.test", password: "x" })).toThrow(/Wrong email or password/);
  expect(() => login(e, { email: "target@example.test", password: "x" })).toThrow(/Rate limit/);
  await emu.control("POST", "/time", { advanceMs: 61_000 });
  login(e, { email: emu.login.email, password: emu.login.password });
  expect(loginAddressesTracked(e)).toBe(1);
  await emu.control("POST", "/reset");
});

test("IdleMap keeps its most recently used entries", () => {
  const m = new IdleMap<number>(3, () => 1_000);
  for (const [k, t] of [["a", 0], ["b", 1], ["c", 2]] as const) m.use(k, t, () => t);
  m.use("a", 3, () => -1);
  m.use("d", 4, () => 4);
  expect(m.use("a", 5, () => -1)).toBe(0);
  expect(m.use("b", 6, () => -1)).toBe(-1);
  expect(m.size).toBe(3);
});

test("a CORS origin of 50 stars is refused with a 400 naming the field; one star matches as S3 does", async () => {
  const bucket = await emu.client().create<any>(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: `cors-${randomKey().slice(0, 8)}` });
  const cors = `/v1/workspaces/${emu.workspaceId}/buckets/${bucket.name}/cors`;
  const stars = await failure(emu.client().put(cors, { rules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://ok.example", `${"*".repeat(50)}x`] }] }));
  expect(stars.status).toBe(400);
  expect(stars.message).toContain("rules.0.allowedOrigins.1: may hold at most one '*' wildcard, as in S3 (this one has 50)");
  const long = await failure(emu.client().put(cors, { rules: [{ allowedMethods: ["GET"], allowedOrigins: [`https://${"a".repeat(300)}.example`] }] }));
  expect(long.message).toContain("rules.0.allowedOrigins.0: must be at most 256 characters");
  const headers = await failure(emu.client().put(cors, { rules: [{ allowedMethods: ["GET"], allowedOrigins: ["*"], allowedHeaders: ["x-*-*"] }] }));
  expect(headers.message).toContain("rules.0.allowedHeaders.0: may hold at most one '*'");
  expect((await emu.leftovers()).bucketCorsRules).toBeUndefined();

  await emu.client().put(cors, { rules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://*.example.com"], allowedHeaders: ["x-amz-*"] }] });
  const preflight = (origin: string, header = "x-amz-date") => fetch(`${bucket.endpoint}/${bucket.name}/k`, {
    method: "OPTIONS", headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": header },
  });
  expect((await preflight("https://shop.example.com")).headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
  expect((await preflight("https://example.com")).status).toBe(403);
  expect((await preflight("https://shop.example.com.evil.test")).status).toBe(403);
  expect((await preflight("https://shop.example.com", "authorization")).status).toBe(403);
  await emu.client().delete(`/v1/workspaces/${emu.workspaceId}/buckets/${bucket.name}`);
});

test("CORS matching is plain string search: many stars and long values stay linear", () => {
  expect(matches("a*b*c", "aXXbYYc", false)).toBe(true);
  expect(matches("a*b*c", "acb", false)).toBe(false);
  expect(matches("*", "", false)).toBe(true);
  expect(matches("ab*ba", "aba", false)).toBe(false);
  expect(matches("X-Amz-*", "x-amz-date", true)).toBe(true);
  // What a backtracking RegExp takes exponential time on (rows kept from before the one-star rule).
  const started = process.hrtime.bigint();
  expect(matches(`${"*a".repeat(50)}b`, "a".repeat(100_000), false)).toBe(false);
  expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5_000);
});

describe("GraphQL depth and cost", () => {
  const gql = async (query: string) => {
    const res = await fetch(`${emu.baseUrl}/graphql`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${emu.apiKey}` }, body: JSON.stringify({ query }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: any; errors?: { message: string; extensions: { code: string } }[] };
  };
  const refused = (message: RegExp) => ({ data: null, errors: [{ message: expect.stringMatching(message), extensions: { code: "BAD_USER_INPUT" } }] });

  test("a deep query is refused with BAD_USER_INPUT naming the limit, before it is validated or run", async () => {
    const deep = `query deep { __schema { types { ${"fields { type { ".repeat(12)}name${" } }".repeat(12)} } } }`;
    expect(await gql(deep)).toEqual(refused(new RegExp(`^query: operation deep nests 27 levels deep; at most ${GRAPHQL_LIMITS.depth} are allowed`)));
    // Depth hidden in fragments counts where the fragment is spread.
    const viaFragments = `{ __schema { types { ...A } } } fragment A on __Type { fields { type { ...B } } } fragment B on __Type { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } } } } } } }`;
    expect(await gql(viaFragments)).toEqual(refused(/^query: the operation nests \d+ levels deep/));
    // Nesting past what the parser can read is refused, not a crash.
    expect(await gql(`{${"a{".repeat(3_000)}b${"}".repeat(3_000)}}`)).toEqual(refused(/^query: (nests too deeply|has more than)/));
  });

  test("a costly query (aliases, fragments spread in fragments) is refused; introspection and the API's operations are not", async () => {
    const aliases = `{ ${Array.from({ length: 400 }, (_, i) => `t${i}: getMyTeams { items { id } }`).join(" ")} }`;
    expect(await gql(aliases)).toEqual(refused(/^query: the operation asks for 1200 fields .*at most 1000 are allowed/));
    // Each fragment spreads the next one ten times: 10^6 fields in a few hundred bytes.
    const levels = 6;
    const frags = Array.from({ length: levels }, (_, i) => i === levels - 1
      ? `fragment F${i} on Team { id }`
      : `fragment F${i} on Team { ${Array.from({ length: 10 }, () => `...F${i + 1}`).join(" ")} }`);
    const bomb = `{ getMyTeams { items { ...F0 } } } ${frags.join(" ")}`;
    expect(await gql(bomb)).toEqual(refused(/^query: the operation asks for 100002 fields/));
    const tokens = `{ getMyTeams { items { ${"id ".repeat(GRAPHQL_LIMITS.tokens)} } } }`;
    expect(await gql(tokens)).toEqual(refused(new RegExp(`^query: has more than ${GRAPHQL_LIMITS.tokens} tokens`)));

    const intro = await gql(getIntrospectionQuery());
    expect(intro.errors).toBeUndefined();
    expect(intro.data.__schema.types.length).toBeGreaterThan(5);
    expect((await gql("{ getMyTeams { items { id name } } }")).data.getMyTeams.items).toHaveLength(1);
  });
});
