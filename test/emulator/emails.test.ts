// Transactional email through the real client as users would call it: send and its rules, batch,
// read and list, sandbox outcomes, the clock-driven status, rate limit, daily quota, scopes, the outbox.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { type ApiError, RateLimitError } from "../../provider/client";
import { ROOT } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let ws: string;
beforeAll(async () => {
  emu = await emulator();
  ws = emu.workspaceId;
});
afterAll(async () => emu?.close());
beforeEach(async () => {
  await emu.control("POST", "/reset");
  emu.emu.settings.speed = 1;
  emu.emu.settings.sendRatePerMinute = undefined;
});

const NO_RETRY = { retry: { maxRetries: 0 } };
const SANDBOX = "sandbox.cloudplatform.test";

/** A sending domain whose records are published in public DNS, verified. */
async function verifiedDomain(name: string): Promise<any> {
  const api = emu.client();
  const added = await api.create<any>(`/v1/workspaces/${ws}/mail/domains`, { name });
  for (const r of added.records) {
    await emu.control("POST", "/dns/records", { name: r.fqdn, type: r.type, value: r.value, priority: r.priority ?? undefined });
  }
  const v = await api.post<any>(`/v1/workspaces/${ws}/mail/domains/${added.domain.id}/verify`);
  expect(v.domain.status).toBe("VERIFIED");
  return v.domain;
}

const message = (extra: Record<string, unknown> = {}) => ({ from: "Shop <hello@mail.shop.test>", to: "ada@example.test", subject: "Hi", text: "Hello", ...extra });
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e: ApiError) => e);
const NO_BREAKS = "must not contain a line break (CR or LF): it goes into a header line";
const messages = (e: ApiError) => (Array.isArray(e.messages) ? e.messages : [e.messages]).join("\n");

describe("POST /v1/emails", () => {
  test("every rule of the message answers 400 naming its field", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client();
    const cases: [Record<string, unknown>, string][] = [
      [{ from: undefined }, "from: is required"],
      [{ from: "Shop <not-an-address>" }, "from: 'Shop <not-an-address>' is not an address"],
      [{ to: undefined }, "to: is required"],
      [{ to: [] }, "to: needs at least one address"],
      [{ to: ["ok@example.test", "nope"] }, "to[1]: \"nope\" is not an address"],
      [{ cc: 42 }, "cc: must be an address or an array of addresses"],
      [{ bcc: "x@" }, "bcc: \"x@\" is not an address"],
      [{ to: Array.from({ length: 30 }, (_, i) => `t${i}@example.test`), cc: Array.from({ length: 21 }, (_, i) => `c${i}@example.test`) }, "to, cc, bcc: at most 50 recipients in all; this message has 51"],
      [{ subject: "  " }, "subject: is required and must not be empty"],
      [{ text: undefined }, "html, text: at least one of html or text is required"],
      [{ headers: Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`X-H${i}`, "v"])) }, "headers: at most 25 entries; this message has 26"],
      [{ headers: { "dkim-signature": "x" } }, "headers.dkim-signature: is refused"],
      [{ headers: { Received: "x" } }, "headers.Received: is refused"],
      [{ headers: { "X-Bad": "a\r\nBcc: evil@example.test" } }, `headers.X-Bad: ${NO_BREAKS}`],
      // A line break in any field that becomes a header line would inject headers.
      [{ subject: "Hi\r\nBcc: evil@example.test" }, `subject: ${NO_BREAKS}`],
      [{ subject: "Hi\nthere" }, `subject: ${NO_BREAKS}`],
      [{ from: "Shop\r\nBcc: evil@example.test <hello@mail.shop.test>" }, `from: ${NO_BREAKS}`],
      [{ from: "\r\nShop <hello@mail.shop.test>" }, `from: ${NO_BREAKS}`],
      [{ to: ["ok@example.test", "Ada\r\n <ada@example.test>"] }, `to[1]: ${NO_BREAKS}`],
      [{ cc: "Bob\n<bob@example.test>" }, `cc: ${NO_BREAKS}`],
      [{ bcc: ["\rx@example.test"] }, `bcc[0]: ${NO_BREAKS}`],
      [{ reply_to: "Help\r\n <help@example.test>" }, `reply_to: ${NO_BREAKS}`],
      [{ replyTo: ["help@example.test\n"] }, `replyTo[0]: ${NO_BREAKS}`],
      [{ attachments: [{ filename: "a.txt\r\nX-Evil: 1", content: "aGk=" }] }, `attachments[0].filename: ${NO_BREAKS}`],
      [{ attachments: [{ filename: "a.txt", content: "aGk=", content_type: "text/plain\r\nX-Evil: 1" }] }, `attachments[0].content_type: ${NO_BREAKS}`],
      [{ attachments: [{ filename: "a.txt", content: "aGk=", content_id: "<a>\nX-Evil: 1" }] }, `attachments[0].content_id: ${NO_BREAKS}`],
      [{ attachments: [{ filename: "a.txt", content: "not base64!" }] }, "attachments[0].content: is not valid base64"],
      [{ attachments: [{ content: "aGk=" }] }, "attachments[0].filename: is required"],
      [{ attachments: [{ filename: "a.txt", content: "aGk=", content_type: "plain" }] }, "attachments[0].content_type: 'plain' is not a MIME type"],
      [{ tags: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`t${i}`, "v"])) }, "tags: at most 10 entries; this message has 11"],
      [{ tags: { ["k".repeat(65)]: "v" } }, "a tag key has 1 to 64 characters; this one has 65"],
      [{ tags: { k: "v".repeat(257) } }, "tags.k: a tag value has at most 256 characters; this one has 257"],
      [{ reply_to: "a@example.test", replyTo: "b@example.test" }, "reply_to: give reply_to or replyTo, not both"],
      [{ replyTo: "nope" }, "replyTo: \"nope\" is not an address"],
      [{ idempotency_key: "has space" }, "idempotency_key: must be 1 to 255 printable characters"],
    ];
    for (const [extra, expected] of cases) {
      const e = await failure(api.post("/v1/emails", message(extra)));
      expect([e.status, messages(e)]).toEqual([400, expect.stringContaining(expected)]);
    }
    // several broken rules are reported together
    const many = await failure(api.post("/v1/emails", { from: "x", to: [], subject: "" }));
    expect(many.messages).toEqual(expect.arrayContaining([expect.stringMatching(/^from:/), expect.stringMatching(/^to:/), expect.stringMatching(/^subject:/), expect.stringMatching(/^html, text:/)]));
    expect(await emu.control("GET", "/mail/outbox")).toEqual({ data: [] });
  });

  test("accepted shapes: bare and named addresses, arrays, html only, replyTo spelling, attachments; 413 over 10 MiB", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client();
    const sent = await api.post<any>("/v1/emails", message({
      from: "hello@mail.shop.test", to: ["Ada <ada@example.test>"], cc: "cc@example.test", text: undefined, html: "<p>Hi</p>",
      replyTo: "support@shop.test", headers: { "X-Campaign": "welcome" }, tags: { kind: "welcome" },
      attachments: [{ filename: "hi.txt", content: Buffer.from("hello").toString("base64"), content_type: "text/plain", content_id: "hi" }],
    }));
    expect(sent).toEqual({ id: expect.any(String), status: "queued", sandbox: false });
    const read = await api.get<any>(`/v1/emails/${sent.id}`);
    expect(read).toMatchObject({ id: sent.id, status: "queued", sandbox: false, to: "ada@example.test", from: "hello@mail.shop.test", cc: ["cc@example.test"], reply_to: ["support@shop.test"], subject: "Hi", tags: { kind: "welcome" } });
    const [box] = (await emu.control("GET", "/mail/outbox")).data;
    expect(box).toMatchObject({ html: "<p>Hi</p>", text: null, headers: { "X-Campaign": "welcome" }, attachments: [{ filename: "hi.txt", content_type: "text/plain", content_id: "hi", size: 5 }] });
    expect((await api.post<any>("/v1/emails", message({ reply_to: ["a@example.test", "B <b@example.test>"] }))).status).toBe("queued");

    const big = await failure(api.post("/v1/emails", message({ text: "x".repeat(6 * 1024 * 1024), html: "y".repeat(4 * 1024 * 1024 + 1) })));
    expect(big.status).toBe(413);
    expect(messages(big)).toContain("message: 10485761 bytes of html, text and decoded attachments; a message has at most 10 MiB");
    // decoded attachment bytes count, not their base64 length
    const nine = Buffer.alloc(9 * 1024 * 1024).toString("base64");
    expect((await api.post<any>("/v1/emails", message({ attachments: [{ filename: "a.bin", content: nine }] }))).status).toBe("queued");
    const over = await failure(api.post("/v1/emails", message({ attachments: [{ filename: "a.bin", content: nine }, { filename: "b.bin", content: Buffer.alloc(1024 * 1024).toString("base64") }] })));
    expect(over.status).toBe(413);
  });

  test("from must be a VERIFIED domain of the workspace (403)", async () => {
    const api = emu.client();
    const pending = await api.create<any>(`/v1/workspaces/${ws}/mail/domains`, { name: "pending.test" });
    let e = await failure(api.post("/v1/emails", message({ from: "a@pending.test" })));
    expect([e.status, messages(e)]).toEqual([403, "from: the sending domain pending.test is PENDING, not VERIFIED; publish its records and verify it first"]);
    e = await failure(api.post("/v1/emails", message({ from: "a@nowhere.test" })));
    expect([e.status, messages(e)]).toEqual([403, expect.stringContaining("from: nowhere.test is not a sending domain of this workspace")]);
    // another workspace's verified domain is not this workspace's
    await verifiedDomain("mail.shop.test");
    e = await failure(emu.client(emu.keys.otherWorkspace).post("/v1/emails", message()));
    expect(e.status).toBe(403);
    // a real key cannot use the sandbox's test domain
    e = await failure(api.post("/v1/emails", message({ from: `x@${SANDBOX}` })));
    expect(e.status).toBe(403);
    expect(pending.domain.status).toBe("PENDING");
  });

  test("idempotency: a retry returns the original message and sends nothing; the header wins over the body's key", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client();
    const first = await api.request<any>("POST", "/v1/emails", { body: message({ idempotency_key: "body-1" }), idempotencyKey: "header-1" });
    const again = await api.request<any>("POST", "/v1/emails", { body: message({ idempotency_key: "body-1" }), idempotencyKey: "header-1" });
    expect(again.data).toEqual(first.data);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    // the key that counted was the header's: the same key in the body alone replays too
    expect((await api.post<any>("/v1/emails", message({ idempotency_key: "header-1" }), { idempotencyKey: undefined })).id).toBe(first.data.id);
    // the body's key was never used: it sends anew
    const bodyOnly = await api.post<any>("/v1/emails", message({ idempotency_key: "body-1" }));
    expect(bodyOnly.id).not.toBe(first.data.id);
    expect((await api.post<any>("/v1/emails", message({ idempotency_key: "body-1" }))).id).toBe(bodyOnly.id);
    // the same key with another message is a conflict
    expect((await failure(api.post("/v1/emails", message({ subject: "Other", idempotency_key: "body-1" })))).status).toBe(409);
    expect((await emu.control("GET", "/mail/outbox")).data.length).toBe(2);
  });

  test("suppressed recipients come back in rejected while the others are sent; one record per to", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client();
    await api.create("/v1/suppressions", { address: "gone@example.test" });
    const sent = await api.post<any>("/v1/emails", message({ to: ["Gone@example.test", "ada@example.test", "bob@example.test"], cc: "gone@example.test" }));
    expect(sent).toEqual({ id: expect.any(String), status: "queued", sandbox: false, rejected: [{ address: "gone@example.test", reason: "suppressed" }] });
    const listed = await api.get<any>("/v1/emails");
    expect(listed.data.map((r: any) => [r.to, r.status])).toEqual([["Gone@example.test", "rejected"], ["ada@example.test", "queued"], ["bob@example.test", "queued"]]);
    // the response's id is the first recipient that was sent
    expect(listed.data[1].id).toBe(sent.id);
    // every primary recipient suppressed: 202, status rejected, nothing sent, not even the cc
    const none = await api.post<any>("/v1/emails", message({ to: "gone@example.test", cc: "cc@example.test" }));
    expect(none).toMatchObject({ status: "rejected", rejected: [{ address: "gone@example.test", reason: "suppressed" }] });
    expect((await api.get<any>(`/v1/emails/${none.id}`)).status).toBe("rejected");
    expect((await api.get<any>("/v1/limits")).domains[0].sent_today).toBe(2);
  });
});

describe("POST /v1/emails/batch", () => {
  test("not atomic: 202 with one {id, status} or {error} per message, in order, each with its own idempotency key", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client();
    const batch = [message({ to: "a@example.test", idempotency_key: "b-1" }), message({ subject: "" }), message({ from: "x@unverified.test" }), message({ to: "c@example.test" })];
    const res = await api.request<any[]>("POST", "/v1/emails/batch", { body: batch });
    expect(res.status).toBe(202);
    expect(res.data).toEqual([
      { id: expect.any(String), status: "queued", sandbox: false },
      { error: { statusCode: 400, message: ["subject: is required and must not be empty"], error: "Bad Request" } },
      { error: { statusCode: 403, message: expect.stringContaining("unverified.test"), error: "Forbidden" } },
      { id: expect.any(String), status: "queued", sandbox: false },
    ]);
    const again = await api.post<any[]>("/v1/emails/batch", [batch[0]]);
    expect(again).toEqual([res.data[0]]);
    expect((await api.get<any>(`/v1/emails/${res.data[3].id}`)).to).toBe("c@example.test");
    expect((await emu.control("GET", "/mail/outbox")).data.map((m: any) => m.to)).toEqual(["a@example.test", "c@example.test"]);

    for (const [body, text] of [[message(), "body: must be a JSON array"], [[], "at least one message"], [Array.from({ length: 101 }, () => message()), "at most 100 messages; this one has 101"]] as const) {
      const e = await failure(api.post("/v1/emails/batch", body));
      expect([e.status, messages(e)]).toEqual([400, expect.stringContaining(text)]);
    }
  });
});

describe("reading messages", () => {
  test("a real key's message moves queued -> sent -> delivered on the emulator clock", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client();
    const { id } = await api.post<any>("/v1/emails", message());
    expect((await api.get<any>(`/v1/emails/${id}`)).status).toBe("queued");
    await emu.control("POST", "/time", { advanceMs: 1_000 });
    expect((await api.get<any>(`/v1/emails/${id}`)).status).toBe("sent");
    await emu.control("POST", "/time", { advanceMs: 2_000 });
    const done = await api.get<any>(`/v1/emails/${id}`);
    expect(done).toMatchObject({ status: "delivered", last_event: "delivered" });
    expect(done.events.map((e: any) => e.status)).toEqual(["queued", "sent", "delivered"]);
    // another workspace's message is 404, like one that never existed
    const e = await failure(emu.client(emu.keys.otherWorkspace).get(`/v1/emails/${id}`));
    expect([e.status, messages(e)]).toEqual([404, `Email ${id} not found`]);
    expect((await failure(api.get("/v1/emails/nope"))).status).toBe(404);
  });

  test("the list: envelope, pages, filters status, to, since and until, limit clamp, 400 on non-numeric page or limit", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client();
    await emu.control("POST", "/time", { now: "2026-03-01T10:00:00Z" });
    for (let i = 0; i < 3; i++) await api.post("/v1/emails", message({ to: `day1-${i}@example.test` }));
    await emu.control("POST", "/time", { now: "2026-03-02T10:00:00Z" });
    for (let i = 0; i < 2; i++) await api.post("/v1/emails", message({ to: `day2-${i}@example.test` }));

    const all = await api.get<any>("/v1/emails");
    expect({ ...all, data: all.data.length }).toEqual({ data: 5, page: 1, limit: 20, total_count: 5, has_more: false });
    expect(all.data.map((r: any) => r.to)).toEqual(["day2-1@example.test", "day2-0@example.test", "day1-2@example.test", "day1-1@example.test", "day1-0@example.test"]);
    const p2 = await api.get<any>("/v1/emails", { query: { page: 2, limit: 2 } });
    expect({ ...p2, data: p2.data.map((r: any) => r.to) }).toEqual({ data: ["day1-2@example.test", "day1-1@example.test"], page: 2, limit: 2, total_count: 5, has_more: true });
    expect((await api.get<any>("/v1/emails", { query: { limit: 500 } })).limit).toBe(100);
    expect((await api.get<any>("/v1/emails", { query: { since: "2026-03-02" } })).total_count).toBe(2);
    expect((await api.get<any>("/v1/emails", { query: { until: "2026-03-01" } })).total_count).toBe(3);
    expect((await api.get<any>("/v1/emails", { query: { since: "2026-03-01T09:00:00Z", until: "2026-03-01T11:00:00.000Z" } })).total_count).toBe(3);
    expect((await api.get<any>("/v1/emails", { query: { to: "DAY1-2@example.test" } })).data.map((r: any) => r.to)).toEqual(["day1-2@example.test"]);
    expect((await api.get<any>("/v1/emails", { query: { status: "delivered" } })).total_count).toBe(3);
    expect((await api.get<any>("/v1/emails", { query: { status: "queued" } })).total_count).toBe(2);

    for (const [query, text] of [[{ page: "two" }, "page: must be a positive integer; got 'two'"], [{ limit: "10x" }, "limit: must be a positive integer"], [{ page: 0 }, "page:"], [{ since: "yesterday" }, "since: must be a date YYYY-MM-DD"], [{ until: "2026-13-45" }, "until:"]] as const) {
      const e = await failure(api.get("/v1/emails", { query }));
      expect([e.status, messages(e)]).toEqual([400, expect.stringContaining(text)]);
    }
    // another workspace sees none of them
    expect((await emu.client(emu.keys.otherWorkspace).get<any>("/v1/emails")).total_count).toBe(0);
  });
});

describe("sandbox keys (mail_test_)", () => {
  test("outcomes by local part at the test domain, sandbox: true, never billed; complaints suppress for good", async () => {
    const domain = await verifiedDomain("mail.shop.test");
    const sandbox = emu.client(emu.keys.sandbox);
    const to = [`delivered@${SANDBOX}`, `bounced@${SANDBOX}`, `complained+t1@${SANDBOX}`, "anyone@example.test"];
    const sent = await sandbox.post<any>("/v1/emails", message({ from: `app@${SANDBOX}`, to }));
    expect(sent).toEqual({ id: expect.any(String), status: "delivered", sandbox: true });
    const listed = await sandbox.get<any>("/v1/emails");
    expect(listed.data.map((r: any) => [r.to, r.status, r.sandbox])).toEqual([
      [to[0], "delivered", true], [to[1], "bounced", true], [to[2], "complained", true], [to[3], "delivered", true],
    ]);
    expect((await sandbox.get<any>(`/v1/emails/${sent.id}`)).sandbox).toBe(true);
    // from: a domain the workspace added (even unverified) is allowed; another is not
    await emu.client().create(`/v1/workspaces/${ws}/mail/domains`, { name: "pending.test" });
    expect((await sandbox.post<any>("/v1/emails", message({ from: "a@pending.test", to: `bounced+2@${SANDBOX}` }))).status).toBe("bounced");
    expect((await failure(sandbox.post("/v1/emails", message({ from: "a@elsewhere.test" })))).status).toBe(403);

    // never billed: nothing counts towards the domain's quota
    const limits = await sandbox.get<any>("/v1/limits");
    expect(limits.sandbox).toBe(true);
    expect(limits.domains.find((d: any) => d.id === domain.id)).toMatchObject({ daily_quota: 200, sent_today: 0, remaining_today: 200 });

    // bounced and complained outcomes suppress the address; a complaint suppression cannot be deleted
    const api = emu.client();
    const sup = await api.list<any>("/v1/suppressions");
    expect(sup.map((s: any) => [s.address, s.reason]).sort()).toEqual([[`bounced+2@${SANDBOX}`, "bounce"], [`bounced@${SANDBOX}`, "bounce"], [`complained+t1@${SANDBOX}`, "complaint"]]);
    const e = await failure(api.delete(`/v1/suppressions/${encodeURIComponent(`complained+t1@${SANDBOX}`)}`));
    expect(e.status).toBe(409);
    const again = await sandbox.post<any>("/v1/emails", message({ from: `app@${SANDBOX}`, to: `complained+t1@${SANDBOX}` }));
    expect(again).toMatchObject({ status: "rejected", rejected: [{ address: `complained+t1@${SANDBOX}`, reason: "suppressed" }] });

    // 403 on any change
    for (const call of [() => sandbox.create("/v1/suppressions", { address: "x@example.test" }), () => sandbox.delete(`/v1/suppressions/${encodeURIComponent(`bounced@${SANDBOX}`)}`), () => sandbox.create(`/v1/workspaces/${ws}/mail/domains`, { name: "s.test" })]) {
      const err = await failure(call());
      expect([err.status, messages(err)]).toEqual([403, "A sandbox key can read domains and suppressions but cannot change them"]);
    }
    expect((await emu.control("GET", "/mail/outbox?sandbox=true")).data.length).toBe(6);
  });

  test("a batch sent with a sandbox key marks each item sandbox: true, as a single send does", async () => {
    const sandbox = emu.client(emu.keys.sandbox);
    const res = await sandbox.post<any[]>("/v1/emails/batch", [
      message({ from: `app@${SANDBOX}`, to: `delivered@${SANDBOX}` }),
      message({ from: `app@${SANDBOX}`, to: `bounced+batch@${SANDBOX}` }),
      message({ from: `app@${SANDBOX}`, subject: "" }),
    ]);
    expect(res).toEqual([
      { id: expect.any(String), status: "delivered", sandbox: true },
      { id: expect.any(String), status: "bounced", sandbox: true },
      { error: expect.objectContaining({ statusCode: 400 }) },
    ]);
    expect((await sandbox.get<any>(`/v1/emails/${res[1].id}`)).sandbox).toBe(true);
  });
});

describe("limits, rate and quota", () => {
  test("GET /v1/limits; the send rate answers 429 with Retry-After; the window slides on the emulator clock", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client(undefined, NO_RETRY);
    const limits = await api.get<any>("/v1/limits");
    expect(limits).toEqual({
      sandbox: false,
      limits: { recipients_per_message: 50, message_size_bytes: 10485760, headers_per_message: 25, tags_per_message: 10, tag_key_max_length: 64, tag_value_max_length: 256, messages_per_batch: 100, page_size_max: 100, page_size_default: 20 },
      rate_limit: { requests_per_minute: 3000, used: 0, remaining: 3000, resets_at: null },
      domains: [{ id: expect.any(String), name: "mail.shop.test", status: "VERIFIED", daily_quota: 200, sent_today: 0, remaining_today: 200, max_daily_quota: 50000, quota_resets_at: expect.any(String) }],
    });
    emu.emu.settings.sendRatePerMinute = 3;
    await api.post("/v1/emails", message());
    await emu.control("POST", "/time", { advanceMs: 20_000 });
    await api.post("/v1/emails", message());
    await api.post("/v1/emails/batch", [message()]);
    const e = await failure(api.post("/v1/emails", message()));
    expect(e).toBeInstanceOf(RateLimitError);
    expect((e as RateLimitError).retryAfterMs).toBe(40_000);
    expect((await api.get<any>("/v1/limits")).rate_limit).toMatchObject({ requests_per_minute: 3, used: 3, remaining: 0 });
    // per key: the mail key has its own window
    expect((await emu.client(emu.keys.mail).post<any>("/v1/emails", message())).status).toBe("queued");
    await emu.control("POST", "/time", { advanceMs: 40_001 });
    expect((await api.post<any>("/v1/emails", message())).status).toBe("queued");
  });

  test("daily domain quota: 200 on the first day, doubling per full day up to 50,000; over quota is 403", async () => {
    const domain = await verifiedDomain("mail.shop.test");
    const api = emu.client();
    const fifty = Array.from({ length: 50 }, (_, i) => `r${i}@example.test`);
    for (let i = 0; i < 4; i++) await api.post("/v1/emails", message({ to: fifty }));
    const e = await failure(api.post("/v1/emails", message()));
    expect([e.status, messages(e)]).toEqual([403, expect.stringContaining("from: the daily send quota of mail.shop.test is reached: 200 of 200 recipients sent today")]);
    const day = 24 * 3600_000;
    await emu.control("POST", "/time", { advanceMs: day });
    expect((await api.get<any>(`/v1/domains/${domain.id}`)).domain.dailyQuota).toBe(400);
    expect((await api.get<any>("/v1/limits")).domains[0]).toMatchObject({ daily_quota: 400, sent_today: 0 });
    await api.post("/v1/emails", message());
    await emu.control("POST", "/time", { advanceMs: 6 * day });
    expect((await api.list<any>(`/v1/workspaces/${ws}/mail/domains`))[0].dailyQuota).toBe(200 * 2 ** 7);
    await emu.control("POST", "/time", { advanceMs: 30 * day });
    expect((await api.get<any>(`/v1/domains/${domain.id}`)).domain.dailyQuota).toBe(50_000);
  });

  test("scopes: EMAIL_SEND needed; a platform token is refused for sending; mail keys send", async () => {
    await verifiedDomain("mail.shop.test");
    let e = await failure(emu.client(emu.keys.platformOnly).post("/v1/emails", message()));
    expect([e.status, messages(e)]).toEqual([403, "Missing scope EMAIL_SEND: this route needs WRITE + EMAIL_SEND"]);
    e = await failure(emu.client(emu.keys.readPlatform).get("/v1/emails"));
    expect([e.status, messages(e)]).toEqual([403, "Missing scope EMAIL_SEND: this route needs READ + EMAIL_SEND"]);
    e = await failure(emu.client(emu.keys.platformOnly).get("/v1/limits"));
    expect(e.status).toBe(403);
    e = await failure(emu.client(emu.keys.pat).post("/v1/emails", message()));
    expect([e.status, messages(e)]).toEqual([403, expect.stringContaining("A platform token (svc_pat_) is refused for sending")]);
    e = await failure(emu.client(emu.keys.pat).post("/v1/emails/batch", [message()]));
    expect(e.status).toBe(403);
    // a read-only key cannot send
    expect((await failure(emu.client(emu.keys.readOnly).post("/v1/emails", message()))).status).toBe(403);
    expect((await emu.client(emu.keys.mail).post<any>("/v1/emails", message())).status).toBe("queued");
    expect((await emu.client(emu.keys.sendOnly).post<any>("/v1/emails", message())).status).toBe("queued");
    expect((await emu.client(emu.keys.sendOnly).get<any>("/v1/emails")).total_count).toBe(2);
  });
});

describe("the outbox (control API)", () => {
  test("lists full content, filters by to and since, and clears", async () => {
    await verifiedDomain("mail.shop.test");
    const api = emu.client();
    await api.post("/v1/emails", message({ to: "a@example.test", bcc: "Audit <audit@example.test>", html: "<b>1</b>", tags: { t: "1" } }));
    await emu.control("POST", "/time", { advanceMs: 60_000 });
    const later = new Date(Date.now() + 30_000).toISOString();
    await api.post("/v1/emails", message({ to: "b@example.test" }));
    const all = (await emu.control("GET", "/mail/outbox")).data;
    expect(all.map((m: any) => m.to)).toEqual(["a@example.test", "b@example.test"]);
    expect(all[0]).toMatchObject({ from: "Shop <hello@mail.shop.test>", subject: "Hi", html: "<b>1</b>", text: "Hello", tags: { t: "1" }, bcc: ["Audit <audit@example.test>"], sandbox: false, workspaceId: ws });
    expect((await emu.control("GET", "/mail/outbox?to=audit@example.test")).data.map((m: any) => m.to)).toEqual(["a@example.test"]);
    expect((await emu.control("GET", `/mail/outbox?since=${later}`)).data.map((m: any) => m.to)).toEqual(["b@example.test"]);
    // the CLI prints the same outbox
    const cli = join(ROOT, "dist", "emulator", "cli.js");
    const printed = await promisify(execFile)(process.execPath, [cli, "outbox", "--base-url", emu.baseUrl, "--to", "b@example.test"]);
    expect(JSON.parse(printed.stdout).data.map((m: any) => [m.to, m.subject])).toEqual([["b@example.test", "Hi"]]);
    await promisify(execFile)(process.execPath, [cli, "outbox", "--base-url", emu.baseUrl, "--clear"]);
    expect(await emu.control("GET", "/mail/outbox")).toEqual({ data: [] });
  });
});
