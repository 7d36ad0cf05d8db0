// Name and value normalisation of DnsRecord and DnsRecordSet: the ways a program may spell a record
// never show as drift, and a real change always does.
import { DnsRecord, recordBody } from "../../provider/resources/dnsRecord";
import { normaliseContent, normaliseName, normaliseRecord, recordKey, unquoteTxt } from "../../provider/resources/dnsRecordRules";
import { DnsRecordSet, matchRecords } from "../../provider/resources/dnsRecordSet";
import { UNKNOWN } from "../../provider/resources/framework";
import { zoneRecords } from "../../sdk/verifiedMailDomain";
import { backoffDelay, parseDuration, pollUntil, waitBudgetMs } from "../../provider/resources/waiter";

describe("names", () => {
  test.each([
    ["www", "www"],
    ["WWW", "www"],
    ["www.example.com", "www"],
    ["www.example.com.", "www"],
    ["WWW.Example.COM.", "www"],
    ["@", "@"],
    ["", "@"],
    ["example.com", "@"],
    ["example.com.", "@"],
    ["sel._domainkey.mail", "sel._domainkey.mail"],
    ["sel._domainkey.mail.example.com.", "sel._domainkey.mail"],
  ])("%s in example.com is %s", (input, want) => {
    expect(normaliseName(input, "Example.com.")).toBe(want);
  });

  test("without the zone only case and the trailing dot change", async () => {
    expect(normaliseName("Mail.Example.com.")).toBe("mail.example.com");
  });

  test("a full name outside the zone is refused; one inside becomes relative", async () => {
    expect(() => recordBody({ name: "www.other.org.", type: "A", content: "192.0.2.1" }, "example.com")).toThrow(/outside the zone example.com/);
    expect(recordBody({ name: "www.example.com.", type: "a", content: "192.0.2.1" }, "example.com")).toEqual({ name: "www", type: "A", content: "192.0.2.1" });
  });
});

describe("values", () => {
  test("TXT quoting and splitting", async () => {
    expect(unquoteTxt('"v=spf1 -all"')).toBe("v=spf1 -all");
    expect(unquoteTxt('"v=DKIM1; k=rsa; p=AAA" "BBB"')).toBe("v=DKIM1; k=rsa; p=AAABBB");
    expect(unquoteTxt('"say \\"hi\\""')).toBe('say "hi"');
    expect(unquoteTxt("plain value")).toBe("plain value");
    expect(normaliseContent("txt", '  "a" "b"  ')).toBe("ab");
  });

  test("host names: case and trailing dot; IPv6 case; CAA tag case", async () => {
    expect(normaliseContent("CNAME", "Target.Example.NET.")).toBe("target.example.net");
    expect(normaliseContent("mx", "MX1.example.com.")).toBe("mx1.example.com");
    expect(normaliseContent("AAAA", "2001:DB8::1")).toBe("2001:db8::1");
    expect(normaliseContent("CAA", '0  ISSUE  "letsencrypt.org"')).toBe('0 issue "letsencrypt.org"');
    expect(normaliseContent("SRV", "5 5060 SIP.Example.com.")).toBe("5 5060 sip.example.com");
    // TXT case is meaningful
    expect(normaliseContent("TXT", "Hello")).toBe("Hello");
  });

  test("an MX written with its priority in the content", async () => {
    expect(normaliseRecord({ name: "@", type: "mx", content: "10 mx.example.com." })).toEqual({ name: "@", type: "MX", content: "mx.example.com", priority: 10 });
  });

  test("records with the same name, type and normalised content have the same key", async () => {
    const a = normaliseRecord({ name: "Sel._DomainKey.mail.example.com.", type: "txt", content: '"v=DKIM1; p=AB" "CD"' }, "example.com");
    const b = normaliseRecord({ name: "sel._domainkey.mail", type: "TXT", content: "v=DKIM1; p=ABCD" }, "example.com");
    expect(recordKey(a)).toBe(recordKey(b));
  });
});

describe("DnsRecord diff", () => {
  const olds = {
    zoneId: "z1", zoneName: "example.com", name: "www", fqdn: "www.example.com", type: "TXT", content: "v=spf1 -all", ttl: 3600, priority: null,
    origin: "USER", editable: true, createdAt: null, updatedAt: null,
  };
  test("spelling differences are no change", async () => {
    const news = { zoneId: "z1", name: "WWW.example.com.", type: "txt", content: '"v=spf1" " -all"' };
    expect((await DnsRecord.diff!("r1", olds, news as any))).toMatchObject({ changes: false });
  });
  test("a new value is an update, a new zone a replacement", async () => {
    expect((await DnsRecord.diff!("r1", olds, { zoneId: "z1", name: "www", type: "TXT", content: "v=spf1 ~all" } as any))).toMatchObject({ changes: true, replaces: [] });
    expect((await DnsRecord.diff!("r1", olds, { zoneId: "z2", name: "www", type: "TXT", content: "v=spf1 -all" } as any))).toMatchObject({ changes: true, replaces: ["zoneId"] });
    expect((await DnsRecord.diff!("r1", olds, { zoneId: "z1", name: "www", type: "TXT", content: "v=spf1 -all", ttl: 300 } as any))).toMatchObject({ changes: true });
  });
  test("check normalises type and content, keeps the trailing dot as a marker, and names bad fields", async () => {
    const ok = (await DnsRecord.check!({}, { zoneId: "z1", name: "WWW.Example.com.", type: "cname", content: "Target.example.net." }));
    expect(ok.inputs).toEqual({ zoneId: "z1", name: "www.example.com.", type: "CNAME", content: "target.example.net" });
    const bad = (await DnsRecord.check!({}, { zoneId: "z1", name: "x", type: "BOGUS", content: "v", priority: 5 }));
    expect(bad.failures?.map((f) => f.reason)).toEqual([
      expect.stringContaining("type: must be one of A, AAAA"),
      "priority: only MX and SRV records take a priority",
    ]);
    expect((await DnsRecord.check!({}, { zoneId: "z1", name: UNKNOWN, type: "TXT", content: "x" })).inputs).toMatchObject({ name: UNKNOWN });
  });
});

describe("DnsRecordSet", () => {
  const managed = [
    { id: "r1", name: "sel._domainkey.mail", fqdn: "sel._domainkey.mail.example.com", type: "TXT", content: "v=DKIM1; p=ABCD", ttl: 3600, priority: null },
    { id: "r2", name: "mail", fqdn: "mail.example.com", type: "TXT", content: "v=spf1 include:x ~all", ttl: 3600, priority: null },
    { id: "r3", name: "mail", fqdn: "mail.example.com", type: "MX", content: "inbound.example.net", ttl: 3600, priority: 10 },
  ];
  const olds = { zoneId: "z1", zoneName: "example.com", records: managed };
  const same = [
    { name: "mail.example.com.", type: "mx", content: "10 Inbound.example.net." },
    { name: "SEL._domainkey.mail", type: "TXT", content: '"v=DKIM1; p=AB" "CD"' },
    { name: "mail", type: "TXT", content: "v=spf1 include:x ~all" },
  ];

  test("the same records, reordered and spelt differently, are no change", async () => {
    expect((await DnsRecordSet.diff!("s", olds, { zoneId: "z1", records: same } as any))).toMatchObject({ changes: false });
  });

  test("a missing record (deleted out of band, dropped by refresh) is a change", async () => {
    expect((await DnsRecordSet.diff!("s", { ...olds, records: managed.slice(1) }, { zoneId: "z1", records: same } as any))).toMatchObject({ changes: true, replaces: [] });
  });

  test("matching keeps identical records, edits a changed value in place, creates and removes the rest", async () => {
    const desired = [
      { index: 0, ...normaliseRecord({ name: "sel._domainkey.mail", type: "TXT", content: "v=DKIM1; p=ABCD" }, "example.com") },
      { index: 1, ...normaliseRecord({ name: "mail", type: "TXT", content: "v=spf1 include:y ~all" }, "example.com") },
      { index: 2, ...normaliseRecord({ name: "_dmarc.mail", type: "TXT", content: "v=DMARC1; p=none;" }, "example.com") },
    ];
    const plan = matchRecords(desired, managed);
    expect(plan.keep.map(([d, c]) => [d.index, c.id])).toEqual([[0, "r1"]]);
    expect(plan.edit.map(([d, c]) => [d.index, c.id])).toEqual([[1, "r2"]]);
    expect(plan.create.map((d) => d.index)).toEqual([2]);
    expect(plan.remove.map((c) => c.id)).toEqual(["r3"]);
  });

  test("check refuses the same record twice, naming both entries", async () => {
    const res = (await DnsRecordSet.check!({}, { zoneId: "z1", records: [{ name: "a", type: "A", content: "192.0.2.1" }, { name: "A.", type: "a", content: "192.0.2.1" }] }));
    expect(res.failures?.[0].reason).toContain("records[1]: the same record as records[0]");
  });
});

describe("VerifiedMailDomain record mapping", () => {
  const records = [
    { name: "DKIM", type: "TXT", host: "s._domainkey", fqdn: "s._domainkey.mail.example.com", zoneHost: "s._domainkey.mail", value: "v=DKIM1; p=X", priority: null, required: true, verified: null, problem: null },
    { name: "MX", type: "MX", host: "@", fqdn: "mail.example.com", zoneHost: "mail", value: "in.example.net", priority: 10, required: true, verified: null, problem: null },
    { name: "DMARC", type: "TXT", host: "_dmarc", fqdn: "_dmarc.mail.example.com", zoneHost: "_dmarc.mail", value: "v=DMARC1; p=none;", priority: null, required: false, verified: null, problem: null },
  ];
  test("zoneHost when the domain's zone is the target zone; the full name otherwise; optional records on request", async () => {
    expect(zoneRecords(records, "z1", "z1")).toEqual([
      { name: "s._domainkey.mail", type: "TXT", content: "v=DKIM1; p=X" },
      { name: "mail", type: "MX", content: "in.example.net", priority: 10 },
      { name: "_dmarc.mail", type: "TXT", content: "v=DMARC1; p=none;" },
    ]);
    expect(zoneRecords(records, null, "z1", false).map((r) => r.name)).toEqual(["s._domainkey.mail.example.com.", "mail.example.com."]);
  });
});

describe("waiter", () => {
  test("durations", async () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("15m")).toBe(900_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("30")).toBe(30_000);
    expect(() => parseDuration("soon")).toThrow(/not a duration/);
    expect(() => parseDuration("0s")).toThrow(/positive/);
  });

  test("a wait lasts the shorter of its own timeout and the operation's customTimeouts, naming which", () => {
    expect(waitBudgetMs({}, undefined, 600_000)).toEqual({ ms: 600_000, limit: "`timeout`" });
    expect(waitBudgetMs({}, "90s", 600_000)).toEqual({ ms: 90_000, limit: "`timeout`" });
    expect(waitBudgetMs({ timeoutMs: 5_000 }, "90s", 600_000)).toEqual({ ms: 5_000, limit: "customTimeouts" });
    expect(waitBudgetMs({ timeoutMs: 120_000 }, "90s", 600_000)).toEqual({ ms: 90_000, limit: "`timeout`" });
    expect(waitBudgetMs({ timeoutMs: 0 }, undefined, 600_000)).toEqual({ ms: 600_000, limit: "`timeout`" });
  });

  test("backoff grows, is capped, and is jittered", async () => {
    const policy = { initialMs: 1000, maxMs: 8000, factor: 2 };
    expect(backoffDelay(0, policy, () => 0)).toBe(500);
    expect(backoffDelay(0, policy, () => 1)).toBe(1000);
    expect(backoffDelay(2, policy, () => 1)).toBe(4000);
    expect(backoffDelay(10, policy, () => 1)).toBe(8000);
    expect(backoffDelay(10, policy, () => 0)).toBe(4000);
  });

  test("pollUntil stops when done, and reports a timeout with the last value", async () => {
    let n = 0;
    const logs: string[] = [];
    const done = await pollUntil(async () => (++n >= 3 ? { done: true, value: n } : { done: false, value: n, progress: `try ${n}` }), {
      timeoutMs: 10_000, policy: { initialMs: 1, maxMs: 2, factor: 2 }, log: (m) => logs.push(m),
    });
    expect(done).toEqual({ value: 3, timedOut: false });
    expect(logs[0]).toMatch(/^try 1; next check in/);
    const late = await pollUntil(async () => ({ done: false, value: "pending" }), { timeoutMs: 30, policy: { initialMs: 5, maxMs: 10, factor: 2 } });
    expect(late).toEqual({ value: "pending", timedOut: true });
  });
});
