// Error mapping, request ids, response validation and keeping the key out of every error.
import { inspect } from "node:util";
import { STATUS_CODES } from "node:http";
import { Agent, type Dispatcher, MockAgent } from "undici";
import {
  ApiError, AuthenticationError, BadRequestError, CloudPlatformClient, CloudPlatformError, ConflictError, ConnectionError,
  InternalServerError, isNotFound, isValidationError, NotFoundError, PayloadTooLargeError, PermissionDeniedError,
  ConfigurationError, InvalidApiKeyError, RateLimitError, ResponseValidationError, UnprocessableEntityError,
} from "../../provider/client";
import { V1Environment, V1Project, V1Workspace } from "../../provider/api/projects";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const NO_RETRY = { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 };
const fault = (rule: Record<string, unknown>) => emu.control("POST", "/faults", rule);
const projectsPath = () => `/v1/workspaces/${emu.workspaceId}/projects`;


/** Every way an error or the client could be printed. */
function renderings(x: unknown): string[] {
  const e = x as Error;
  return [String(x), e?.message ?? "", e?.stack ?? "", inspect(x, { depth: 10, showHidden: true }), JSON.stringify(x) ?? "", JSON.stringify({ ...(x as object) })];
}

/** A MockAgent client for shapes the emulator never produces. */
function mocked(key = emu.apiKey) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get("http://api.test");
  const client = new CloudPlatformClient({ apiKey: key, baseUrl: "http://api.test", insecure: true, dispatcher: agent, retry: NO_RETRY });
  return { agent, pool, client };
}
const JSON_HEADERS = { "content-type": "application/json" };

describe("status -> error class", () => {
  const cases: [number, new (...a: any[]) => ApiError][] = [
    [400, BadRequestError], [401, AuthenticationError], [403, PermissionDeniedError], [404, NotFoundError],
    [409, ConflictError], [413, PayloadTooLargeError], [422, UnprocessableEntityError], [429, RateLimitError],
    [500, InternalServerError], [502, InternalServerError], [503, InternalServerError], [504, InternalServerError],
  ];
  test.each(cases)("%i", async (status, cls) => {
    await fault({ kind: "status", status, path: "/v1/me", count: 1 });
    const c = emu.client(undefined, { retry: NO_RETRY });
    const err = await failure(c.get("/v1/me"));
    expect(err).toBeInstanceOf(cls);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(CloudPlatformError);
    expect(err.name).toBe(cls.name);
    expect(err).toMatchObject({ status, phrase: STATUS_CODES[status], method: "GET", path: "/v1/me" });
    expect(err.messages).toEqual(status === 429 ? expect.stringContaining("Retry-After") : "Injected fault");
    expect(err.requestId).toMatch(/^req_[0-9a-f]{32}$/);
    expect(err.message).toBe(`GET /v1/me: ${status} ${STATUS_CODES[status]}: ${err.messages} [request id ${err.requestId}]`);
    expect(err.body).toMatchObject({ statusCode: status, error: STATUS_CODES[status] });
  });

  test("a status without its own class is a plain ApiError", async () => {
    await fault({ kind: "status", status: 418, path: "/v1/me", count: 1 });
    const err = await failure(emu.client().get("/v1/me"));
    expect(err.constructor).toBe(ApiError);
    expect(err).toMatchObject({ status: 418, phrase: "I'm a Teapot" });
  });

  test("429 keeps its Retry-After", async () => {
    await fault({ kind: "status", status: 429, retryAfterSeconds: 7, path: "/v1/me", count: 1 });
    const err = await failure(emu.client(undefined, { retry: NO_RETRY }).get("/v1/me"));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(7_000);
  });

  test("real emulator errors: 401, 404, 409, and a 400 with an array of messages", async () => {
    const unknownKey = `svc_live_${"A".repeat(40)}`;
    const e401 = await failure(emu.client(unknownKey).get("/v1/me"));
    expect(e401).toBeInstanceOf(AuthenticationError);
    expect(e401.messages).toBe("Invalid or revoked API key");

    const c = emu.client();
    const e404 = await failure(c.get("/v1/projects/00000000-0000-4000-8000-000000000000"));
    expect(e404).toBeInstanceOf(NotFoundError);
    expect(isNotFound(e404)).toBe(true);
    expect(e404.messages).toContain("not found");

    const p = await c.create<any>(projectsPath(), { name: "errs" });
    await c.create(`/v1/projects/${p.id}/environments`, { name: "prod" });
    const e409 = await failure(c.create(`/v1/projects/${p.id}/environments`, { name: "PROD" }));
    expect(e409).toBeInstanceOf(ConflictError);
    expect(e409.method).toBe("POST");
    expect(e409.path).toBe(`/v1/projects/${p.id}/environments`);

    const e400 = await failure(c.create(projectsPath(), { name: "-bad", description: "x".repeat(2000) }));
    expect(e400).toBeInstanceOf(BadRequestError);
    expect(isValidationError(e400)).toBe(true);
    expect(Array.isArray(e400.messages)).toBe(true);
    expect(e400.messageList).toEqual([expect.stringMatching(/^name: /), expect.stringMatching(/^description: /)]);
    expect(e400.message).toContain(e400.messageList.join("; "));
  });

  test("a string message and an array message read the same through messageList", async () => {
    const { pool, client, agent } = mocked();
    pool.intercept({ path: "/a", method: "GET" }).reply(400, { statusCode: 400, message: "one", error: "Bad Request" }, { headers: JSON_HEADERS });
    pool.intercept({ path: "/b", method: "GET" }).reply(422, { statusCode: 422, message: ["x: bad", "y: bad"], error: "Unprocessable Entity" }, { headers: JSON_HEADERS });
    const a = await failure(client.get("/a"));
    const b = await failure(client.get("/b"));
    expect(a.messageList).toEqual(["one"]);
    expect(b).toBeInstanceOf(UnprocessableEntityError);
    expect(isValidationError(b)).toBe(true);
    expect(b.messageList).toEqual(["x: bad", "y: bad"]);
    expect(b.message).toContain("x: bad; y: bad");
    await agent.close();
  });

  test("a non-JSON error body still gives a useful error", async () => {
    const { pool, client, agent } = mocked();
    pool.intercept({ path: "/html", method: "GET" }).reply(502, "<html><body>upstream timed out</body></html>", { headers: { "content-type": "text/html" } });
    pool.intercept({ path: "/broken", method: "GET" }).reply(500, "{not json", { headers: JSON_HEADERS });
    pool.intercept({ path: "/empty", method: "DELETE" }).reply(503, "");
    const html = await failure(client.get("/html"));
    expect(html).toBeInstanceOf(InternalServerError);
    expect(html.phrase).toBe("Bad Gateway");
    expect(html.message).toContain("upstream timed out");
    expect(html.message).toContain("GET /html: 502 Bad Gateway");
    const broken = await failure(client.get("/broken"));
    expect(broken.status).toBe(500);
    expect(broken.message).toContain("{not json");
    const empty = await failure(client.delete("/empty"));
    expect(empty.status).toBe(503);
    expect(empty.message).toMatch(/^DELETE \/empty: 503 Service Unavailable \[request id req_[0-9a-f]{32}\]$/);
    await agent.close();
  });
});

describe("request ids", () => {
  const recorders: Agent[] = [];
  afterAll(async () => Promise.all(recorders.map((r) => r.close())));
  class Recorder extends Agent {
    readonly ids: string[] = [];
    constructor() {
      super();
      recorders.push(this);
    }
    override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      this.ids.push(String((opts.headers as Record<string, string>)["x-request-id"]));
      return super.dispatch(opts, handler);
    }
  }

  test("every request carries a fresh x-request-id, and the response echoes it", async () => {
    const rec = new Recorder();
    const c = emu.client(undefined, { dispatcher: rec });
    const a = await c.request("GET", "/v1/me");
    const b = await c.request("GET", "/v1/workspaces");
    expect(rec.ids).toHaveLength(2);
    for (const id of rec.ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(rec.ids[0]).not.toBe(rec.ids[1]);
    expect([a.requestId, b.requestId]).toEqual(rec.ids);
    expect(a.headers["x-request-id"]).toBe(rec.ids[0]);
  });

  test("a caller-supplied request id is sent, echoed and reported in errors", async () => {
    const c = emu.client();
    const res = await c.request("GET", "/v1/me", { requestId: "deploy-7.step:2_a" });
    expect(res.requestId).toBe("deploy-7.step:2_a");
    const err = await failure(c.get("/v1/projects/nope", { requestId: "trace-404" }));
    expect(err.requestId).toBe("trace-404");
    expect(err.message).toContain("[request id trace-404]");
  });

  test("when the server replaces an invalid id, errors name the server's id", async () => {
    const c = emu.client();
    const err = await failure(c.get("/v1/projects/nope", { requestId: "has spaces in it" }));
    expect(err.requestId).toMatch(/^req_[0-9a-f]{32}$/);
  });

  test("an error without an echoed id falls back to the id sent", async () => {
    const { pool, client, agent } = mocked();
    pool.intercept({ path: "/x", method: "GET" }).reply(404, { message: "gone" }, { headers: JSON_HEADERS });
    const err = await failure(client.get("/x", { requestId: "mine-1" }));
    expect(err.requestId).toBe("mine-1");
    await agent.close();
  });

  test("a connection failure names the request id, the attempts and the code", async () => {
    const c = new CloudPlatformClient({ apiKey: emu.apiKey, baseUrl: "http://127.0.0.1:1", retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 } });
    const err = await failure(c.get("/v1/me", { requestId: "conn-1" }));
    await c.close();
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ method: "GET", path: "/v1/me", requestId: "conn-1", code: "ECONNREFUSED", attempts: 3 });
    expect(err.message).toContain("after 3 attempts");
    expect(err.message).toContain("[request id conn-1]");
    for (const text of renderings(err)) expect(text).not.toContain(emu.apiKey);
  });
});

describe("response validation", () => {
  test("real responses parse, unknown fields are kept", async () => {
    const c = emu.client();
    const p = await c.create(projectsPath(), { name: "typed" }, { schema: V1Project });
    expect(p.name).toBe("typed");
    expect(p.environments).toEqual([]);
  });

  test("unknown fields and unknown enumeration values are tolerated", async () => {
    const { pool, client, agent } = mocked();
    pool.intercept({ path: "/env", method: "GET" }).reply(200, {
      id: "e1", projectId: "p1", name: "qa", kind: "STAGING", isPreview: false, futureField: { nested: true },
    }, { headers: JSON_HEADERS });
    pool.intercept({ path: "/ws", method: "GET" }).reply(200, { id: "w1", name: "W", role: "BILLING_ADMIN", plan: "GOLD" }, { headers: JSON_HEADERS });
    const env = await client.get("/env", { schema: V1Environment });
    expect(env).toMatchObject({ kind: "STAGING", futureField: { nested: true }, paused: false });
    expect(await client.get("/ws", { schema: V1Workspace })).toMatchObject({ role: "BILLING_ADMIN", plan: "GOLD" });
    await agent.close();
  });

  test("a missing required field is a ResponseValidationError naming the field", async () => {
    const { pool, client, agent } = mocked();
    pool.intercept({ path: "/p", method: "GET" }).reply(200, { id: "p1", workspaceId: "w1" }, { headers: { ...JSON_HEADERS, "x-request-id": "srv-9" } });
    pool.intercept({ path: "/wrongtype", method: "GET" }).reply(200, { id: 5, workspaceId: "w1", name: "n" }, { headers: JSON_HEADERS });
    const err = await failure(client.get("/p", { schema: V1Project }));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.message).toMatch(/GET \/p: unexpected response shape: name: /);
    expect(err.message).toContain("srv-9");
    const wrong = await failure(client.get("/wrongtype", { schema: V1Project }));
    expect(wrong.message).toContain("id: ");
    await agent.close();
  });
});

describe("the API key stays out of errors and printouts", () => {
  test("client printouts never show the key", () => {
    const c = emu.client();
    const texts = [inspect(c), inspect(c, { showHidden: true, depth: 5 }), JSON.stringify(c), String(c), `${JSON.stringify({ c })}`];
    for (const t of texts) expect(t).not.toContain(emu.apiKey);
    expect(inspect(c)).toContain("svc_live_***");
    expect(Object.values(c).join(" ")).not.toContain(emu.apiKey);
  });

  test("no error from the API or the transport shows the key", async () => {
    const keys = [emu.apiKey, emu.keys.readPlatform, emu.keys.sendOnly, emu.keys.mail];
    const errors: unknown[] = [];
    errors.push(await failure(emu.client(`svc_live_${"B".repeat(40)}`).get("/v1/me")));
    errors.push(await failure(emu.client(emu.keys.readPlatform).create(projectsPath(), { name: "x" })));
    errors.push(await failure(emu.client(emu.keys.sendOnly).get("/v1/me")));
    errors.push(await failure(emu.client(emu.keys.mail).get("/v1/me")));
    errors.push(await failure(emu.client().create(projectsPath(), { name: "" })));
    await fault({ kind: "drop", method: "PATCH", count: 1 });
    errors.push(await failure(emu.client().patch("/v1/projects/x", {})));
    for (const e of errors) {
      expect(e).toBeInstanceOf(CloudPlatformError);
      for (const text of renderings(e)) for (const k of keys) expect(text).not.toContain(k);
    }
  });

  test("a server that echoes the key back does not leak it into the error", async () => {
    const key = emu.apiKey;
    const { pool, client, agent } = mocked(key);
    pool.intercept({ path: "/echo", method: "GET" }).reply(401, { statusCode: 401, message: `Invalid key ${key}`, error: "Unauthorized" }, { headers: JSON_HEADERS });
    pool.intercept({ path: "/echo-text", method: "GET" }).reply(400, `Authorization: Bearer ${key}`, { headers: { "content-type": "text/plain" } });
    pool.intercept({ path: "/echo-array", method: "GET" }).reply(400, { message: [`token ${key} rejected`] }, { headers: JSON_HEADERS });
    for (const path of ["/echo", "/echo-text", "/echo-array"]) {
      const err = await failure(client.get(path));
      expect(err).toBeInstanceOf(ApiError);
      for (const text of [err.message, inspect(err.messages), JSON.stringify(err.messages)]) expect(text).toContain("svc_live_***");
      for (const text of renderings(err)) expect(text).not.toContain(key);
    }
    await agent.close();
  });
});

describe("errors built directly", () => {
  const init = (status: number, body: unknown = {}) => ({ status, body, requestId: "r1", method: "GET", path: "/x" });

  test("every 5xx is an InternalServerError, other unlisted statuses a plain ApiError", () => {
    expect(ApiError.from(init(599))).toBeInstanceOf(InternalServerError);
    expect(ApiError.from(init(501))).toBeInstanceOf(InternalServerError);
    for (const s of [402, 405, 410, 499]) {
      const e = ApiError.from(init(s));
      expect(e.constructor).toBe(ApiError);
      expect(e.name).toBe("ApiError");
    }
  });

  test("the phrase comes from the body's error, then the HTTP standard, then 'Error'", () => {
    expect(ApiError.from(init(404, { error: "Gone Away" })).phrase).toBe("Gone Away");
    expect(ApiError.from(init(404, { error: 7 })).phrase).toBe("Not Found");
    const odd = ApiError.from(init(599, null));
    expect(odd.phrase).toBe("Error");
    expect(odd.message).toBe("GET /x: 599 Error [request id r1]");
  });

  test("the message: the body's string or list, a text body cut to 500 characters, else nothing", () => {
    expect(ApiError.from(init(400, { message: 42 })).messages).toBe("");
    expect(ApiError.from(init(400, { message: 42 })).messageList).toEqual([]);
    expect(ApiError.from(init(400, { message: [1, "b"] })).messages).toEqual(["1", "b"]);
    const long = ApiError.from(init(502, `${"x".repeat(500)}TAIL`));
    expect(long.messages).toBe("x".repeat(500));
    expect(long.message).toBe(`GET /x: 502 Bad Gateway: ${"x".repeat(500)} [request id r1]`);
    expect(ApiError.from(init(502, "")).messages).toBe("");
  });

  test("a RateLimitError keeps the wait; validation errors are 400 and 422 only", () => {
    expect((ApiError.from({ ...init(429), retryAfterMs: 1_500 }) as RateLimitError).retryAfterMs).toBe(1_500);
    expect(isValidationError(ApiError.from(init(400)))).toBe(true);
    expect(isValidationError(ApiError.from(init(422)))).toBe(true);
    expect(isValidationError(ApiError.from(init(409)))).toBe(false);
    expect(isValidationError(new Error("x"))).toBe(false);
    expect(isNotFound(ApiError.from(init(410)))).toBe(false);
  });

  test("each error names its class, as printed in an engine's output", () => {
    const named: [Error, string][] = [
      [new CloudPlatformError("x"), "CloudPlatformError"],
      [new InvalidApiKeyError("x"), "InvalidApiKeyError"],
      [new ConfigurationError("x"), "ConfigurationError"],
      [new ResponseValidationError("x"), "ResponseValidationError"],
    ];
    for (const [err, name] of named) {
      expect(err.name).toBe(name);
      expect(String(err)).toBe(`${name}: x`);
    }
  });

  test("a connection failure after one attempt, without a code", () => {
    const e = new ConnectionError("POST", "/p", "r2", undefined, "socket hang up", 1);
    expect(e.message).toBe("POST /p failed without a response after 1 attempt: socket hang up [request id r2]");
    expect(e.name).toBe("ConnectionError");
    expect(e).toBeInstanceOf(CloudPlatformError);
    const coded = new ConnectionError("GET", "/q", "r3", "ECONNRESET", "reset", 2);
    expect(coded.message).toBe("GET /q failed without a response after 2 attempts: reset (ECONNRESET) [request id r3]");
  });
});
