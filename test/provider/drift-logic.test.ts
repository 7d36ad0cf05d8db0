// cloudplatform-drift's logic that needs no Pulumi CLI (the fast tier): stack names kept apart on
// every backend, merge of sharded reports (two projects with the same stack names, a shard
// missing), a change the provider cannot name, stable finding ids and the baseline's marks, the
// webhook against a local receiver (a 5xx, then a 200; no secret in the body or the log), and the
// unmanaged objects with their coverage over an in-process emulator, handed to cloudplatform-adopt.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeContext } from "../../provider/config";
import type { Context } from "../../provider/resources/framework";
import { adopt, valueSecrets } from "../../provider/adopt/cli";
import { completeProgram } from "../../provider/adopt/program";
import { changeId, findingId, hasNew, markAgainst } from "../../provider/drift/baseline";
import { render } from "../../provider/drift/cli";
import { discover, fileBackendStacks, qualify } from "../../provider/drift/discover";
import { FindingCollector, withoutIgnored } from "../../provider/drift/findings";
import { buildReport, exitCode, mergeReports, missingShards } from "../../provider/drift/report";
import { largestFirst, listUnmanaged } from "../../provider/drift/run";
import type { Report, StackReport } from "../../provider/drift/types";
import { inventory, managedKeys, unmanagedOf } from "../../provider/drift/unmanaged";
import { postWebhook, retryAfterMs, webhookText } from "../../provider/drift/webhook";
import { makeRunner } from "../../provider/drift/workspace";
import { emulator, type TestEmulator } from "../support/emulator";
import { makeEverything, type Made } from "../support/fixtures";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "drift-logic-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file backend in the project layout holding these `project/stack` checkpoints. */
function fileBackend(name: string, stacks: string[]): string {
  const root = join(dir, name);
  mkdirSync(join(root, ".pulumi", "stacks"), { recursive: true });
  writeFileSync(join(root, ".pulumi", "meta.yaml"), "version: 1\n");
  for (const s of stacks) {
    const [project, stack] = s.split("/");
    mkdirSync(join(root, ".pulumi", "stacks", project), { recursive: true });
    writeFileSync(join(root, ".pulumi", "stacks", project, `${stack}.json`), "{}");
    writeFileSync(join(root, ".pulumi", "stacks", project, `${stack}.json.bak`), "{}");
  }
  return `file://${root}`;
}

/** A project folder (Pulumi.yaml only). */
function projectDir(name: string): string {
  const d = join(dir, `program-${name}`);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\n`);
  return d;
}

describe("stacks kept apart", () => {
  test("--dir stacks of two projects with the same stack names are four stacks, each org/project/stack", async () => {
    const backend = fileBackend("two-projects", ["shop/prod", "shop/staging", "edge/prod", "edge/staging"]);
    const runner = makeRunner({ PULUMI_BACKEND_URL: backend });
    const { targets, failures } = await discover(runner, { stacks: [], dirs: [projectDir("shop"), projectDir("edge")], all: false, backends: [] });
    expect(failures).toEqual([]);
    expect(targets.map((t) => t.name).sort()).toEqual(["organization/edge/prod", "organization/edge/staging", "organization/shop/prod", "organization/shop/staging"]);
    expect(fileBackendStacks(backend)).toEqual(targets.map((t) => t.name).sort());
    // A bare name with one --dir, and project/stack, on a file backend: the organization is `organization`.
    const one = await discover(runner, { stacks: ["prod"], dirs: [projectDir("edge")], all: false, backends: [] });
    expect(one.targets.map((t) => t.name)).toEqual(["organization/edge/prod"]);
    expect(await qualify(runner, "edge/staging", {})).toEqual({ org: "organization", project: "edge", stack: "staging" });
  });

  test("on a file backend the largest checkpoints are checked first", () => {
    const backend = fileBackend("sizes", ["shop/small", "shop/large", "edge/mid"]);
    const root = backend.slice("file://".length);
    writeFileSync(join(root, ".pulumi", "stacks", "shop", "large.json"), "x".repeat(3000));
    writeFileSync(join(root, ".pulumi", "stacks", "edge", "mid.json"), "x".repeat(2000));
    const t = (name: string) => ({ name, project: name.split("/")[1], stack: name.split("/")[2], backend });
    expect(largestFirst([t("organization/shop/small"), t("organization/edge/mid"), t("organization/shop/large")]).map((x) => x.stack)).toEqual(["large", "mid", "small"]);
  });

  test("project/stack on another backend: the organization its listing holds; two are refused as ambiguous", async () => {
    // A stand-in CLI answering `stack ls` as the Pulumi Cloud backend does (fully qualified names).
    const fake = join(dir, "fake-pulumi");
    writeFileSync(fake, `#!/bin/sh\necho '[{"name":"acme/edge/staging"},{"name":"acme/shop/prod"},{"name":"other/shop/prod"}]'\n`);
    chmodSync(fake, 0o755);
    const runner = { pulumi: fake, env: { PULUMI_BACKEND_URL: "https://api.pulumi.example" } };
    expect(await qualify(runner, "edge/staging", {})).toEqual({ org: "acme", project: "edge", stack: "staging" });
    await expect(qualify(runner, "shop/prod", {})).rejects.toThrow(/acme\/shop\/prod and other\/shop\/prod both match; name one as org\/project\/stack/);
    await expect(qualify(runner, "shop/qa", {})).rejects.toThrow(/no stack shop\/qa/);
    const found = await discover(runner, { stacks: ["edge/staging", "shop/qa"], dirs: [], all: false, backends: [] });
    expect(found.targets.map((t) => t.name)).toEqual(["acme/edge/staging"]);
    expect(found.failures.map((f) => [f.name, f.status])).toEqual([["shop/qa", "failed"]]);
  });

  const entry = (name: string, status: StackReport["status"] = "clean"): StackReport => ({
    name, project: name.split("/")[1] ?? "", stack: name.split("/")[2] ?? name, status, resourcesChecked: 2, findings: [], durationMs: 1,
  });

  test("merge keeps shop/prod and edge/prod apart; a report naming a stack bare is named in full", () => {
    const changed = { type: "changed" as const, urn: "urn:pulumi:prod::shop::cloudplatform:index:Project::app", resourceType: "cloudplatform:index:Project", changelog: [{ type: "update" as const, path: ["description"], from: "a", to: "b" }] };
    const a = buildReport([{ ...entry("organization/shop/prod", "drifted"), findings: [changed] }], { shard: "1/2" });
    // An earlier release named --dir stacks by the bare stack name.
    const b = buildReport([{ ...entry("prod"), project: "edge", stack: "prod" }], { shard: "2/2" });
    const merged = mergeReports([a, b]);
    expect(merged.stacks.map((s) => [s.name, s.status])).toEqual([["organization/edge/prod", "clean"], ["organization/shop/prod", "drifted"]]);
    expect(merged.summary).toMatchObject({ stacksChecked: 2, stacksDrifted: 1 });
    expect(exitCode(merged)).toBe(7);
    for (const format of ["console", "markdown", "junit"] as const) {
      const text = render(merged, format);
      expect([format, text.includes("organization/shop/prod"), text.includes("organization/edge/prod")]).toEqual([format, true, true]);
    }
  });

  test("merge of an incomplete set of shards names each missing one and exits 1; shards of two runs are refused", () => {
    const shards = [buildReport([entry("organization/shop/prod")], { shard: "1/3" }), buildReport([entry("organization/edge/prod")], { shard: "3/3" })];
    expect(missingShards(shards)).toEqual(["2/3"]);
    const merged = mergeReports(shards);
    expect(merged.stacks.find((s) => s.name === "shard 2/3")).toMatchObject({ status: "failed", error: { kind: "missing", message: expect.stringMatching(/no report of shard 2\/3/) } });
    expect(exitCode(merged)).toBe(1);
    expect(render(merged, "console")).toMatch(/shard 2\/3  FAILED \(missing\)/);
    expect(() => mergeReports([shards[0], buildReport([], { shard: "2/2" })])).toThrow(/shards of different runs \(1\/3, 2\/2\)/);
    expect(missingShards([buildReport([])])).toEqual([]);
  });
});

describe("a change the provider cannot name", () => {
  const SIG = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "[secret]" };
  const urn = "urn:pulumi:staging::shop::pulumi-nodejs:dynamic/cloudplatform:Service::web";
  const update = (olds: object, news: object, extra: object = {}) => ({
    resOutputsEvent: { metadata: { op: "update", urn, type: "pulumi-nodejs:dynamic/cloudplatform:Service", old: { custom: true, id: "svc1", inputs: olds }, new: { custom: true, id: "svc1", inputs: news }, ...extra } },
  }) as any;

  test("the engine says changed, the env vars are secret as a whole: a finding naming the resource, `changed` and the reason; drifted, exit 7", () => {
    const c = new FindingCollector();
    c.onEvent(update({ image: "nginx:1.27", envVars: SIG }, { image: "nginx:1.27", envVars: SIG }, { detailedDiff: null }));
    expect(c.findings).toEqual([{
      type: "changed", urn, resourceType: "pulumi-nodejs:dynamic/cloudplatform:Service", id: "svc1", changelog: [],
      reason: "the provider names no property; envVars is secret as a whole in state", hiddenIn: ["envVars"],
    }]);
    const r = buildReport([{ name: "organization/shop/staging", project: "shop", stack: "staging", status: "drifted", resourcesChecked: 1, findings: c.findings, durationMs: 1 }]);
    expect([r.summary.stacksDrifted, r.summary.resourcesDrifted, exitCode(r)]).toEqual([1, 1, 7]);
    expect(render(r, "console")).toMatch(/Service web\s+changed\s+\(not named\)\s+the provider names no property; envVars is secret as a whole in state/);
    expect(render(r, "junit")).toMatch(/Service web: changed, no property named/);
    // Ignored only when every property it may hide in is.
    expect(withoutIgnored(c.findings, new Map([[urn, ["envVars"]]]))).toEqual([]);
    expect(withoutIgnored(c.findings, new Map([[urn, ["image"]]]))).toHaveLength(1);
  });

  test("no secret to hide in: still a finding; the engine naming only inputs the program does not set: none", () => {
    const c = new FindingCollector();
    c.onEvent(update({ image: "nginx:1.27" }, { image: "nginx:1.27" }));
    expect(c.findings.map((f) => f.reason)).toEqual(["the provider reports a change and names no property"]);
    const d = new FindingCollector();
    d.onEvent(update({ image: "nginx:1.27" }, { image: "nginx:1.27", region: "af-west-1" }, { detailedDiff: { region: { diffKind: "add" } } }));
    expect(d.findings).toEqual([]);
  });

  test("only outputs the program does not set moved (a description set by hand, found by the drift harness): no finding", () => {
    const moved = (olds: object, outs: [object, object]) => ({
      resOutputsEvent: { metadata: { op: "update", urn, type: "pulumi-nodejs:dynamic/cloudplatform:Project", old: { custom: true, id: "p1", inputs: olds, outputs: outs[0] }, new: { custom: true, id: "p1", inputs: olds, outputs: outs[1] } } },
    }) as any;
    const c = new FindingCollector();
    c.onEvent(moved({ name: "spare" }, [{ name: "spare", description: null, updatedAt: "t0" }, { name: "spare", description: "by hand", updatedAt: "t1" }]));
    expect(c.findings).toEqual([]);
    // A moved output the program does set, its value hidden: still a finding.
    c.onEvent(moved({ name: "spare", description: "mine" }, [{ name: "spare", description: "mine" }, { name: "spare", description: "theirs" }]));
    expect(c.findings.map((f) => f.reason)).toEqual(["the provider reports a change and names no property"]);
  });
});

describe("finding ids and the baseline", () => {
  const stackWith = (name: string, findings: StackReport["findings"], status: StackReport["status"] = findings.length ? "drifted" : "clean"): StackReport =>
    ({ name, project: name.split("/")[1], stack: name.split("/")[2], status, resourcesChecked: 3, findings, durationMs: 1 });
  const web = "urn:pulumi:prod::shop::cloudplatform:index:Service::web";
  const www = "urn:pulumi:prod::shop::cloudplatform:index:DnsRecord::www";
  const svc = (changes: [string, unknown][]) => ({ type: "changed" as const, urn: web, resourceType: "cloudplatform:index:Service", changelog: changes.map(([p, to]) => ({ type: "update" as const, path: p.split("."), from: "x", to })) });

  test("ids come from the stack, the URN and the path, never a value", () => {
    const a = buildReport([stackWith("organization/shop/prod", [svc([["image", "nginx:1.28"]])])]);
    const b = buildReport([stackWith("organization/shop/prod", [svc([["image", "nginx:1.29"]])])]);
    expect(a.stacks[0].findings[0].changelog![0].findingId).toBe(b.stacks[0].findings[0].changelog![0].findingId);
    expect(a.stacks[0].findings[0].findingId).toBe(findingId("organization/shop/prod", web));
    expect(changeId("organization/shop/prod", web, ["image"])).not.toBe(changeId("organization/edge/prod", web, ["image"]));
    expect(changeId("organization/shop/prod", web, ["image"])).toMatch(/^[0-9a-f]{16}$/);
  });

  test("new, persisting and resolved; a stack that failed resolves nothing; --notify-on new asks only when something is new", () => {
    const yesterday = buildReport([
      stackWith("organization/shop/prod", [svc([["image", "nginx:1.28"], ["port", 81]]), { type: "deleted", urn: www, resourceType: "cloudplatform:index:DnsRecord" }]),
      stackWith("organization/shop/qa", [svc([["image", "a"]])]),
    ], { generatedAt: "2026-01-01T05:17:00.000Z" });
    const today = buildReport([
      stackWith("organization/shop/prod", [svc([["image", "nginx:1.29"], ["timeout", "5m"]])]),
      stackWith("organization/shop/qa", [], "failed"),
    ]);
    markAgainst(today, yesterday);
    const f = today.stacks[0].findings[0];
    expect(f.baseline).toBe("new");
    expect(f.changelog!.map((c) => [c.path.join("."), c.baseline])).toEqual([["image", "persisting"], ["timeout", "new"]]);
    expect(today.stacks[0].resolved!.map((r) => [r.urn.split("::").pop(), r.type, (r.changelog ?? []).map((c) => c.path.join("."))])).toEqual([["web", "changed", ["port"]], ["www", "deleted", []]]);
    expect(today.stacks[1].resolved).toBeUndefined();
    expect(today.baseline).toEqual({ generatedAt: "2026-01-01T05:17:00.000Z", new: 1, persisting: 0, resolved: 2 });
    expect(hasNew(today, yesterday)).toBe(true);
    expect(render(today, "console")).toMatch(/Service web\s+update \(new\)\s+timeout/);
    expect(render(today, "console")).toMatch(/DnsRecord www\s+resolved/);
    expect(render(today, "markdown")).toMatch(/since the baseline of 2026-01-01T05:17:00.000Z: 1 new, 0 persisting, 2 resolved/);

    // The same drift the next night: nothing new, so nothing to send.
    const again = buildReport([stackWith("organization/shop/prod", [svc([["image", "nginx:1.30"], ["timeout", "6m"]])]), stackWith("organization/shop/qa", [], "failed")]);
    markAgainst(again, today);
    expect([again.stacks[0].findings[0].baseline, hasNew(again, today)]).toEqual(["persisting", false]);
    // A stack that starts failing is news.
    expect(hasNew(buildReport([stackWith("organization/shop/prod", [], "failed")]), yesterday)).toBe(true);
  });
});

describe("the webhook", () => {
  let server: Server;
  let url: string;
  const answers: { status: number; headers?: Record<string, string> }[] = [];
  const received: { body: string; headers: IncomingMessage["headers"] }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
        const a = answers.shift() ?? { status: 200 };
        res.writeHead(a.status, a.headers).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    // The path of a chat tool's webhook is its secret.
    url = `http://127.0.0.1:${port}/hooks/T000/B000/s3cr3t-hook-token`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    answers.length = 0;
    received.length = 0;
  });

  const report = (): Report => {
    const r = buildReport([{
      name: "organization/shop/prod", project: "shop", stack: "prod", status: "drifted", resourcesChecked: 2, durationMs: 1,
      backend: "s3://state/", findings: [{ type: "changed", urn: "urn:pulumi:prod::shop::cloudplatform:index:Service::web", resourceType: "cloudplatform:index:Service", changelog: [
        { type: "update", path: ["envVars", "1", "value"], from: "[secret]", to: "[secret]" }, { type: "update", path: ["image"], from: "nginx:1.27", to: "nginx:1.28" },
      ] }],
    }]);
    return r;
  };

  test("a 503 then a 200: posted twice, Retry-After honoured; the body is the report and a text; no secret in the body or the log", async () => {
    answers.push({ status: 503, headers: { "retry-after": "3" } }, { status: 200 });
    const waits: number[] = [];
    const log: string[] = [];
    const result = await postWebhook(url, report(), { sleep: async (ms) => void waits.push(ms), log: (l) => log.push(l) });
    expect(result).toEqual({ url: new URL(url).origin, status: "sent", attempts: 2 });
    expect(waits).toEqual([3000]);
    expect(received).toHaveLength(2);
    const body = JSON.parse(received[1].body);
    expect(received[1].headers["content-type"]).toBe("application/json");
    expect(body).toMatchObject({ tool: "cloudplatform-drift", summary: { stacksDrifted: 1 } });
    expect(body.text).toMatch(/^Drift found: 1 stacks checked: 1 drifted/);
    expect(body.text).toMatch(/organization\/shop\/prod drifted/);
    expect(body.stacks[0].findings[0].changelog[0]).toMatchObject({ from: "[secret]", to: "[secret]" });
    for (const text of [received[1].body, ...log, JSON.stringify(result)]) expect(text).not.toMatch(/s3cr3t|hook-token|T000/);
    expect(log).toEqual([`posting the report to ${new URL(url).origin}: HTTP 503; retrying in 3.0 s`]);
  });

  test("backoff doubles without Retry-After, capped; a 4xx is final; a receiver that never answers fails after every attempt", async () => {
    answers.push({ status: 500 }, { status: 502 }, { status: 200 });
    const waits: number[] = [];
    expect((await postWebhook(url, report(), { baseDelayMs: 10, sleep: async (ms) => void waits.push(ms), log: () => {} })).attempts).toBe(3);
    expect(waits).toEqual([10, 20]);
    answers.push({ status: 404 });
    const log: string[] = [];
    expect(await postWebhook(url, report(), { sleep: async () => {}, log: (l) => log.push(l) })).toMatchObject({ status: "failed", attempts: 1, message: "HTTP 404" });
    expect(log.join("\n")).not.toMatch(/hook-token/);
    const gone = `http://127.0.0.1:1/hooks/s3cr3t`;
    const r = await postWebhook(gone, report(), { attempts: 2, sleep: async () => {}, log: () => {} });
    expect(r).toMatchObject({ url: "http://127.0.0.1:1", status: "failed", attempts: 2 });
    expect(JSON.stringify(r)).not.toMatch(/s3cr3t/);
    expect(retryAfterMs("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(webhookText(buildReport([]))).toMatch(/^No drift: 0 stacks checked/);
  });
});

describe("unmanaged objects and coverage", () => {
  let emu: TestEmulator;
  let ctx: Context;
  let made: Made;
  beforeAll(async () => {
    emu = await emulator({ settings: { speed: 0 } });
    ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl, workspaceId: emu.workspaceId });
    made = await makeEverything(emu, emu.client(), "u", join(dir, "made"));
  });
  afterAll(async () => {
    await ctx?.client.close();
    await emu?.close();
  });

  test("what a stack's state holds, by kind: ids, a record set's records, a service that declares its env vars", () => {
    const state = (type: string, id: string, inputs: object = {}, outputs: object = {}) => ({ type, old: { id, inputs, outputs } }) as any;
    expect(managedKeys(state("cloudplatform:index:Service", "s1", { envVars: "[secret]" }))).toEqual(["Service:s1", "EnvVars:s1"]);
    expect(managedKeys(state("pulumi-nodejs:dynamic/cloudplatform:Service", "s2"))).toEqual(["Service:s2"]);
    // Declared keys, as a list (native) or a map (dynamic): those keys only; any other is the EnvVar's or unmanaged.
    expect(managedKeys(state("cloudplatform:index:Service", "s4", { envVars: [{ key: "MODE", value: "x" }], secretFiles: [{ path: "/etc/a", content: "[secret]" }] })))
      .toEqual(["Service:s4", "EnvVarIn:s4/MODE", "SecretFileIn:s4:/etc/a"]);
    expect(managedKeys(state("pulumi-nodejs:dynamic/cloudplatform:Service", "s5", { envVars: { MODE: { value: "x" }, TOKEN: { value: "[secret]" } } })))
      .toEqual(["Service:s5", "EnvVarIn:s5/MODE", "EnvVarIn:s5/TOKEN"]);
    expect(managedKeys(state("cloudplatform:index:DnsRecordSet", "z/records-1", {}, { records: [{ id: "r1" }, { id: "r2" }] }))).toEqual(["DnsRecord:r1", "DnsRecord:r2"]);
    expect(managedKeys(state("cloudplatform:index:StaticSite", "s3"))).toEqual(["Service:s3"]);
    expect(managedKeys(state("cloudplatform:index:EnvVar", "s1/MODE"))).toEqual(["EnvVar:s1/MODE"]);
    expect(managedKeys(state("cloudplatform:index:DnsZoneVerification", "z"))).toEqual([]);
    expect(managedKeys(state("random:index:RandomId", "x"))).toEqual([]);
  });

  test("a service that declares some env vars and secret files: one added by hand is unmanaged, an EnvVar resource's managed (the drift harness found them invisible)", () => {
    const inv = {
      workspaceId: "w1", items: [{ kind: "Service" as const, key: "Service:s1", importId: "s1", parts: ["shop", "production", "web"], tiebreak: "s1" }],
      serviceConfig: new Map([["s1", { envVars: ["EXTRA", "FLAG", "MODE"], secretFiles: ["/etc/a.json", "/etc/extra.conf"] }]]),
    };
    const u = unmanagedOf(inv, new Set(["Service:s1", "EnvVarIn:s1/MODE", "EnvVar:s1/FLAG", "SecretFileIn:s1:/etc/a.json"]));
    expect(u.objects.map((o) => o.key)).toEqual(["EnvVar:s1/EXTRA", "SecretFile:s1:/etc/extra.conf"]);
    // The declared ones count with the service, as before; the EnvVar resource's apart.
    expect(u.coverage).toEqual({ managed: 2, total: 4, percent: 50 });
  });

  test("the workspace less what the stacks manage, the coverage, and cloudplatform-adopt --from-drift takes the list", async () => {
    const inv = await inventory(ctx);
    const [recordsZone, ids] = made.importIds.DnsRecordSet.split("/");
    const mailSet = inv.items.find((i) => i.kind === "DnsRecordSet" && i.parts[0] === `mail.${made.zone}`)!;
    // One stack holds the project, its environment, the web service (its env vars and secret files
    // declared), the worker (its LONE env var as an EnvVar, its secret file nowhere), the zone, the
    // www record, one record of the mail domain's set, and the mail domain.
    const managed = new Set([
      `Project:${made.projectId}`, `Environment:${made.environmentId}`, `Service:${made.serviceId}`, `EnvVars:${made.serviceId}`, `SecretFiles:${made.serviceId}`,
      `Service:${made.otherServiceId}`, `EnvVar:${made.otherServiceId}/LONE`, `DnsZone:${made.zoneId}`, `DnsRecord:${made.importIds.DnsRecord.split("/")[1]}`,
      `DnsRecord:${mailSet.importId.split("/")[1].split(",")[0]}`, `MailDomain:${made.mailDomainId}`,
    ]);
    const u = unmanagedOf(inv, managed);
    expect(u.objects.map((o) => [o.kind, o.name, o.importId]).sort()).toEqual([
      ["Bucket", made.bucket, `${emu.workspaceId}/${made.region}/${made.bucket}`],
      ["CustomDomain", `shop.${made.zone}`, made.importIds.CustomDomain],
      ["DnsRecord", `${made.zone}/apex/a`, expect.stringMatching(`^${recordsZone}/`)],
      ["DnsRecord", `${made.zone}/apex/txt`, expect.stringMatching(`^${recordsZone}/`)],
      ["DnsRecordSet", `shop.${made.zone}/records`, expect.stringMatching(`^${made.zoneId}/`)],
      ["SecretFile", "legacy-u/production/worker:/etc/lone.txt", made.importIds.SecretFile],
    ].sort());
    expect(ids.split(",").every((id) => u.objects.some((o) => o.importId.endsWith(id)))).toBe(true);
    // 15 counted: 13 objects adopt finds (the published static site it cannot read back is not
    // counted, nor the suppression), and the worker's env var and secret file; 9 of them managed.
    expect(u.coverage).toEqual({ managed: 9, total: 15, percent: 60 });

    const report = buildReport([], { unmanaged: { ...u } });
    expect([report.summary.objectsUnmanaged, exitCode(report)]).toEqual([6, 7]);
    expect(render(report, "console")).toMatch(/6 unmanaged objects in workspace \S+; coverage 60%: 9 of 15 objects managed/);
    const { file, summary } = await adopt(ctx, { fromDrift: { text: JSON.stringify(report), source: "drift.json" } });
    expect(file.resources.map((r) => [r.type.split(":")[2], r.id, r.parent ?? null]).sort()).toEqual([
      ["Bucket", `${emu.workspaceId}/${made.region}/${made.bucket}`, null],
      ["CustomDomain", made.importIds.CustomDomain, null],
      ["DnsRecord", expect.stringMatching(`^${made.zoneId}/`), null],
      ["DnsRecord", expect.stringMatching(`^${made.zoneId}/`), null],
      ["DnsRecordSet", expect.stringMatching(`^${made.zoneId}/`), null],
      ["SecretFile", `${made.importIds.SecretFile}?omit=content`, null],
    ].sort());
    expect(summary).toMatch(/1 env var\(s\) and secret file\(s\): their values are left out of the import/);
    // The secret file's content goes to config, never into the program.
    const { singles, values } = await valueSecrets(ctx, file);
    const name = file.resources.find((r) => r.type.endsWith(":SecretFile"))!.name;
    expect(singles).toEqual([{ name, type: "SecretFile", configKey: `${name}-content` }]);
    expect([...values.values()].map((v) => v.value)).toEqual([made.secrets[3]]);
    const program = `import * as cloudplatform from "pulumi-cloudplatform/native";\n\nconst ${name} = new cloudplatform.SecretFile("${name}", {\n    path: "/etc/lone.txt",\n    serviceId: "${made.otherServiceId}",\n}, {\n    protect: false,\n});\n`;
    const done = completeProgram(program, "typescript", [], singles);
    expect(done).toContain(`new cloudplatform.SecretFile("${name}", {\n    content: config.requireSecret("${name}-content"),\n    path:`);
    expect(done).not.toContain(made.secrets[3]);
    // Sharded: each shard's stacks carry what they manage, and merge lists the workspace once; a
    // stack checked without --unmanaged cannot say, and a stack that failed makes the list incomplete.
    const shardStack = (name: string, managedKeys?: string[], status: StackReport["status"] = "clean"): StackReport =>
      ({ name, project: "p", stack: name, status, resourcesChecked: 1, findings: [], durationMs: 1, ...(managedKeys ? { managed: managedKeys } : {}) });
    const keys = [...managed];
    const merged = mergeReports([
      buildReport([shardStack("organization/p/a", keys.slice(0, 5))], { shard: "1/2" }),
      buildReport([shardStack("organization/p/b", keys.slice(5)), shardStack("organization/p/c", undefined, "failed")], { shard: "2/2" }),
    ]);
    const listed = await listUnmanaged(merged, Promise.resolve(inv));
    expect([listed.coverage, listed.objects.length, listed.incomplete]).toEqual([u.coverage, 6, ["organization/p/c"]]);
    await expect(listUnmanaged(buildReport([shardStack("organization/p/a")]), Promise.resolve(inv))).rejects.toThrow(/carry no list of what they manage/);
    expect((await listUnmanaged(buildReport([]), Promise.resolve(new Error("401 Unauthorized")))).error).toMatch(/could not be listed: 401/);

    // A report of another workspace, or without the list, is refused.
    await expect(adopt(ctx, { fromDrift: { text: JSON.stringify({ ...report, unmanaged: { ...u, workspaceId: "ws-other" } }), source: "x.json" } })).rejects.toThrow(/lists workspace ws-other/);
    await expect(adopt(ctx, { fromDrift: { text: JSON.stringify(buildReport([])), source: "y.json" } })).rejects.toThrow(/make it with cloudplatform-drift --unmanaged/);
  });
});
