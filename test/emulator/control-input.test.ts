// The control API takes the same care with its input as the API does: every route validates its
// body and query, answers 400 naming the field and the rule, and stores nothing; and no rule that
// reaches the emulator another way can take the REST or GraphQL API down.
import type { LogEvent } from "../../emulator";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
const events: LogEvent[] = [];
let previewServiceId: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 }, log: (e) => events.push(e) });
  const api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "inputs" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "dev" });
  const web = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
  await api.put(`/v1/services/${web.id}/previews-enabled`, { enabled: true });
  previewServiceId = web.id;
  await emu.control("POST", "/dns/records", { name: "kept.example.test", type: "TXT", value: "kept" });
});
afterAll(async () => emu?.close());

interface Call {
  method: string;
  path: string;
  body?: unknown;
  /** Sent as is (not JSON-encoded), with a JSON content type. */
  raw?: string;
}

async function call(c: Call): Promise<{ status: number; body: any }> {
  const res = await fetch(`${emu.baseUrl}/_emulator${c.path}`, {
    method: c.method,
    headers: c.method === "GET" ? {} : { "content-type": "application/json" },
    body: c.raw ?? (c.body === undefined ? undefined : JSON.stringify(c.body)),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Everything a control route can change, read back through the control API. */
async function snapshot(): Promise<unknown> {
  const [faults, rateLimit, state, delegations, records, propagation, outbox, keys] = await Promise.all(
    ["/faults", "/rate-limit", "/state", "/dns/delegations", "/dns/records", "/dns/propagation", "/mail/outbox", "/storage/access-keys"].map((p) => emu.control("GET", p)),
  );
  const time = Date.parse((await emu.control("GET", "/time")).now);
  const suppressions = await emu.client().list<any>("/v1/suppressions");
  const counts = Object.fromEntries(Object.entries(state.counts).filter(([, n]) => n !== 0));
  return { faults, rateLimit, counts, delegations, records, propagation, outbox, keys, suppressions, clockOffsetMinutes: Math.round((time - Date.now()) / 60_000) };
}

const id = "00000000-0000-4000-8000-000000000000";
/** [route, bad input, what the message must say] */
const BAD: [Call, string][] = [
  [{ method: "POST", path: "/faults", body: { kind: "status", pathRegex: "((" } }, "pathRegex: must be a valid regular expression"],
  [{ method: "POST", path: "/faults", body: { kind: "status", pathRegex: "" } }, "pathRegex: must not be empty"],
  [{ method: "POST", path: "/faults", body: { kind: "status", method: "FETCH" } }, "method: must be an HTTP method"],
  [{ method: "POST", path: "/faults", body: { kind: "status", path: "v1/me" } }, "path: must be a path starting with /"],
  [{ method: "POST", path: "/faults", body: { kind: "status", status: 200 } }, "status: must be between 400 and 599"],
  [{ method: "POST", path: "/faults", body: { kind: "status", status: 500.5 } }, "status: must be an integer"],
  [{ method: "POST", path: "/faults", body: { kind: "status", rate: 2 } }, "rate: must be between 0 and 1"],
  [{ method: "POST", path: "/faults", body: { kind: "status", count: 0 } }, "count: must be at least 1"],
  [{ method: "POST", path: "/faults", body: { kind: "status", retryAfterSeconds: -1 } }, "retryAfterSeconds: must be between 0 and 86400"],
  [{ method: "POST", path: "/faults", body: { kind: "latency" } }, "latencyMs: is required for a latency fault"],
  [{ method: "POST", path: "/faults", body: { kind: "latency", latencyMs: 1e9 } }, "latencyMs: must be between 0 and 60000"],
  [{ method: "POST", path: "/faults", body: { kind: "drop", status: 503 } }, "status: applies to status faults only"],
  [{ method: "POST", path: "/faults", body: { kind: "status", pathregex: "x" } }, "pathregex: is not a field of this body"],
  [{ method: "POST", path: "/faults", body: { kind: "explode" } }, "kind: must be status, latency or drop"],
  [{ method: "POST", path: "/faults", body: [] }, "body:"],
  [{ method: "POST", path: "/faults", raw: "{not json" }, "Body is not valid JSON"],
  [{ method: "POST", path: "/time", body: { now: "garbage" } }, "now: must be an ISO 8601 date-time"],
  [{ method: "POST", path: "/time", body: { now: "1" } }, "now: must be an ISO 8601 date-time"],
  [{ method: "POST", path: "/time", body: { now: "+275760-09-13T00:00:00Z" } }, "now: must be an ISO 8601 date-time"],
  [{ method: "POST", path: "/time", body: { now: "1969-12-31T23:59:59Z" } }, "now: must be between 1970-01-01 and 9999-12-31"],
  [{ method: "POST", path: "/time", body: { advanceMs: "1000" } }, "advanceMs:"],
  [{ method: "POST", path: "/time", body: { advanceMs: 1.5 } }, "advanceMs: must be an integer"],
  [{ method: "POST", path: "/time", raw: '{"advanceMs": 1e400}' }, "advanceMs:"],
  [{ method: "POST", path: "/time", body: { advanceMs: 8e15 } }, "advanceMs: would move the clock outside the range it keeps"],
  [{ method: "POST", path: "/time", body: { reset: "yes" } }, "reset:"],
  [{ method: "POST", path: "/time", body: { advance: 1000 } }, "advance: is not a field of this body"],
  [{ method: "POST", path: "/time", body: {} }, "give advanceMs, now or reset"],
  [{ method: "PUT", path: "/rate-limit", body: { perMinute: 0 } }, "perMinute: must be more than 0"],
  [{ method: "PUT", path: "/rate-limit", body: { perMinute: -5 } }, "perMinute: must be more than 0"],
  [{ method: "PUT", path: "/rate-limit", body: { perMinute: "60" } }, "perMinute:"],
  [{ method: "PUT", path: "/rate-limit", raw: '{"perMinute": 1e400}' }, "perMinute:"],
  [{ method: "PUT", path: "/rate-limit", body: { perMinute: 60, burst: 0 } }, "burst: must be at least 1"],
  [{ method: "PUT", path: "/rate-limit", body: { perMinute: 60, burst: 1.5 } }, "burst: must be an integer"],
  [{ method: "PUT", path: "/rate-limit", body: {} }, "perMinute:"],
  [{ method: "POST", path: "/reset", body: { everything: true } }, "everything: is not a field of this body"],
  [{ method: "DELETE", path: "/faults", body: { id: "x" } }, "id: is not a field of this body"],
  [{ method: "GET", path: "/state?verbose=1" }, "verbose: is not a query parameter of this route"],
  [{ method: "POST", path: "/dns/delegations", body: { domain: "localhost" } }, "domain: 'localhost' is not a full domain name"],
  [{ method: "POST", path: "/dns/delegations", body: { domain: "*.example.test" } }, "domain:"],
  [{ method: "POST", path: "/dns/delegations", body: {} }, "domain:"],
  [{ method: "POST", path: "/dns/records", body: { name: "x.example.test", type: "BOGUS", value: "v" } }, "type: must be one of"],
  [{ method: "POST", path: "/dns/records", body: { name: "x.example.test", type: "A", value: "garbage" } }, "value: 'garbage' is not an IPv4 address"],
  [{ method: "POST", path: "/dns/records", body: { name: "x.example.test", type: "AAAA", value: "1.2.3.4" } }, "value: '1.2.3.4' is not an IPv6 address"],
  [{ method: "POST", path: "/dns/records", body: { name: "x.example.test", type: "MX", value: "not a host" } }, "value: 'not a host' is not a host name"],
  [{ method: "POST", path: "/dns/records", body: { name: "x.example.test", type: "TXT", value: "v", priority: 5 } }, "priority: only MX and SRV records take a priority"],
  [{ method: "POST", path: "/dns/records", body: { name: "x.example.test", type: "TXT", value: "v", ttl: 0 } }, "ttl: must be between 1 and 2147483647"],
  [{ method: "POST", path: "/dns/records", body: { name: "not a name", type: "TXT", value: "v" } }, "name: 'not a name' is not a full domain name"],
  [{ method: "POST", path: "/dns/records", body: { name: "a.*.example.test", type: "TXT", value: "v" } }, "name:"],
  [{ method: "POST", path: "/dns/records", body: { name: "x.example.test", type: "TXT" } }, "value: must be a string"],
  [{ method: "PATCH", path: `/dns/records/${id}`, body: { value: 5 } }, "value: must be a string"],
  [{ method: "DELETE", path: "/dns/records?type=BOGUS" }, "type: must be one of"],
  [{ method: "DELETE", path: "/dns/records?nam=x.example.test" }, "nam: is not a query parameter"],
  [{ method: "GET", path: "/dns/resolve?type=TXT" }, "name:"],
  [{ method: "GET", path: "/dns/resolve?name=x.example.test&type=BOGUS" }, "type: must be one of"],
  [{ method: "GET", path: "/dns/resolve?name=x.example.test&pending=maybe" }, "pending: must be true or false"],
  [{ method: "PUT", path: "/dns/propagation", body: { dnsPropagationMs: -1 } }, "dnsPropagationMs: must be between 0 and 86400000"],
  [{ method: "PUT", path: "/dns/propagation", body: { dnsPropagationMs: "soon" } }, "dnsPropagationMs:"],
  [{ method: "POST", path: "/mail/suppressions", body: { address: "not-an-address" } }, "address: must be an email address"],
  [{ method: "POST", path: "/mail/suppressions", body: { address: "a@example.test", reason: "spite" } }, "reason: must be manual, unsubscribe, bounce or complaint"],
  [{ method: "GET", path: "/mail/outbox?sandbox=maybe" }, "sandbox: must be true or false"],
  [{ method: "GET", path: "/mail/outbox?since=yesterday" }, "since:"],
  [{ method: "GET", path: "/mail/outbox?too=a@example.test" }, "too: is not a query parameter"],
  [{ method: "POST", path: "/storage/objects", body: { bucket: "b", key: "", content: "x" } }, "key: must not be empty"],
  [{ method: "POST", path: "/storage/objects", body: { bucket: "b", key: "k", content: "%%%", encoding: "base64" } }, "content: must be base64"],
  [{ method: "POST", path: "/storage/objects", body: { bucket: "b", key: "k", content: "x", encoding: "hex" } }, "encoding: must be utf8 or base64"],
  [{ method: "POST", path: "/storage/objects", body: { bucket: "b", key: "k", content: "x", contentType: "text" } }, "contentType: must look like type/subtype"],
  [{ method: "POST", path: "/storage/objects", body: { bucket: "b", key: "k" } }, "content: must be a string"],
  [{ method: "GET", path: "/storage/access-keys?workspace=x" }, "workspace: is not a query parameter"],
  [{ method: "POST", path: "/previews", body: { serviceId: "x", prNumber: 0, headRef: "b" } }, "prNumber: must be a positive integer"],
  [{ method: "POST", path: "/previews", body: { serviceId: "x", prNumber: 1 } }, "headRef:"],
  [{ method: "POST", path: "/previews", body: { serviceId: "x", prNumber: 1, headRef: "b", draft: true } }, "draft: is not a field of this body"],
  [{ method: "GET", path: "/services?all=1" }, "all: is not a query parameter"],
];

test("every control route refuses bad input with 400 naming the field and the rule, and stores nothing", async () => {
  const before = await snapshot();
  const wrong: string[] = [];
  for (const [c, says] of BAD) {
    const res = await call(c);
    const message = JSON.stringify(res.body?.message);
    if (res.status !== 400 || res.body?.error !== "Bad Request" || !message.includes(says)) {
      wrong.push(`${c.method} ${c.path} ${c.raw ?? JSON.stringify(c.body)}: ${res.status} ${JSON.stringify(res.body)} (wanted 400 saying ${says})`);
    }
  }
  expect(wrong).toEqual([]);
  expect(await snapshot()).toEqual(before);

  // The API still answers, REST and GraphQL alike.
  await expect(emu.client().get("/v1/me")).resolves.toMatchObject({ email: expect.any(String) });
  const gql = await fetch(`${emu.baseUrl}/graphql`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${emu.apiKey}` },
    body: JSON.stringify({ query: "{ getMyTeams { items { id } } }" }),
  });
  expect(gql.status).toBe(200);
  expect(((await gql.json()) as any).data.getMyTeams.items.length).toBeGreaterThan(0);
});

test("the same routes still accept good input (the schemas are not too strict)", async () => {
  const good: Call[] = [
    { method: "POST", path: "/faults", body: { kind: "status", method: "get", path: "/v1/nothing-here", pathRegex: "^/v1/nothing-here$", status: 503, retryAfter: "date", retryAfterSeconds: 5, rate: 0.5, count: 2 } },
    { method: "POST", path: "/faults", body: { kind: "latency", latencyMs: 10, path: "/v1/nothing-here" } },
    { method: "POST", path: "/time", body: { now: "2030-01-02T03:04:05+01:00", advanceMs: -1_000 } },
    { method: "POST", path: "/time", body: { reset: true } },
    { method: "PUT", path: "/rate-limit", body: { perMinute: 6000, burst: 100 } },
    { method: "POST", path: "/dns/delegations", body: { domain: "Deleg.Example.Test." } },
    { method: "POST", path: "/dns/records", body: { name: "*.wild.example.test", type: "txt", value: "\"quoted\" \"parts\"", ttl: 60 } },
    { method: "POST", path: "/dns/records", body: { name: "example.test", type: "MX", value: "mx.example.test", priority: null } },
    { method: "GET", path: "/dns/resolve?name=x.wild.example.test&type=TXT&pending=true" },
    { method: "PUT", path: "/dns/propagation", body: { dnsPropagationMs: 0 } },
    { method: "POST", path: "/mail/suppressions", body: { address: "angry@example.test" } },
    { method: "GET", path: "/mail/outbox?to=a@example.test&since=2020-01-01&sandbox=false" },
    { method: "POST", path: "/previews", body: { serviceId: previewServiceId, prNumber: 1, headRef: "feature/x", title: "X" } },
    { method: "POST", path: "/reset", body: {} },
  ];
  for (const c of good) {
    const res = await call(c);
    expect([c.method, c.path, res.status < 300 ? "ok" : JSON.stringify(res.body)]).toEqual([c.method, c.path, "ok"]);
  }
});

test("a bad rule, clock or limit set in-process cannot take the API down", async () => {
  const api = emu.client(undefined, { retry: { maxRetries: 0 } });
  // A rule added past the control route's check is skipped (and reported), not thrown on every request.
  emu.emu.faults.add({ kind: "status", pathRegex: "((" });
  emu.emu.faults.add({ kind: "status", status: 42 });
  emu.emu.faults.add({ kind: "latency", latencyMs: Number.NaN });
  await expect(api.get("/v1/me")).resolves.toBeDefined();
  // The clock refuses what a date cannot hold; the rate limiter refuses a limit that is not one.
  expect(events.filter((e) => e.kind === "error").map((e) => e.msg)).toEqual(expect.arrayContaining([
    expect.stringMatching(/^fault .* skipped: pathRegex does not compile/),
    expect.stringMatching(/^fault .* skipped: status 42 is not an error status/),
    expect.stringMatching(/^fault .* skipped: latencyMs NaN/),
  ]));
  expect(() => emu.emu.clock.set(Number.NaN)).toThrow(RangeError);
  expect(() => emu.emu.clock.advance(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  expect(() => emu.emu.clock.advance(9e15)).toThrow(RangeError);
  expect(() => emu.emu.rateLimit.set({ perMinute: 0 })).toThrow(RangeError);
  expect(() => emu.emu.rateLimit.set({ perMinute: Number.NaN })).toThrow(RangeError);
  expect(emu.emu.rateLimit.get()).toBeUndefined();
  await expect(api.get("/v1/me")).resolves.toBeDefined();
  const gql = await fetch(`${emu.baseUrl}/graphql`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${emu.apiKey}` },
    body: JSON.stringify({ query: "{ getMyTeams { items { id } } }" }),
  });
  expect(((await gql.json()) as any).errors).toBeUndefined();
  await emu.control("DELETE", "/faults");
});
