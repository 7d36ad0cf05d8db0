// The drift command's pure parts: paths, changelogs and their masking, shards, the report's
// summary and exit code, merging, and every format keeping secrets out.
import type { StepEventMetadata } from "@pulumi/pulumi/automation";
import { inShard, parseStackName, stackKey } from "../../provider/drift/discover";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { classify } from "../../provider/drift/failures";
import { checkpointResources, fileBackendDir } from "../../provider/drift/ignores";
import { changelog, FindingCollector, parsePath, pathText, valueAt, withoutIgnored } from "../../provider/drift/findings";
import { buildReport, exitCode, mergeReports, parseReport } from "../../provider/drift/report";
import { render } from "../../provider/drift/cli";
import { emailHtml, emailText } from "../../provider/drift/notify";
import type { StackReport } from "../../provider/drift/types";

const meta = (olds: object, news: object, detailedDiff?: Record<string, { diffKind: string }>): StepEventMetadata =>
  ({ op: "update", urn: "urn:pulumi:s::p::cloudplatform:index:Service::web", type: "cloudplatform:index:Service", old: { inputs: olds }, new: { inputs: news }, detailedDiff } as unknown as StepEventMetadata);

test("property paths parse as the engine writes them", () => {
  expect(parsePath("envVars[1].value")).toEqual(["envVars", "1", "value"]);
  expect(parsePath('tags["a.b"].x')).toEqual(["tags", "a.b", "x"]);
  expect(valueAt({ a: [{ b: 1 }] }, ["a", "0", "b"])).toBe(1);
  expect(valueAt({ a: "[secret]" }, ["a", "0", "b"])).toBe("[secret]");
});

test("a detailed diff becomes a driftctl changelog, from the state to live; an input the program does not set is not drift", () => {
  const log = changelog(meta(
    { image: "nginx:1.27", corsRules: [{ allowedOrigins: ["https://a.test"] }] },
    { image: "nginx:1.28", corsRules: [{ allowedOrigins: ["https://b.test"] }, { allowedOrigins: ["*"] }], region: "af-west-1" },
    { image: { diffKind: "update" }, "corsRules[0].allowedOrigins[0]": { diffKind: "update" }, "corsRules[1]": { diffKind: "add" }, region: { diffKind: "add" } },
  ));
  expect(log).toEqual([
    { type: "update", path: ["corsRules", "0", "allowedOrigins", "0"], from: "https://a.test", to: "https://b.test" },
    { type: "create", path: ["corsRules", "1"], to: { allowedOrigins: ["*"] } },
    { type: "update", path: ["image"], from: "nginx:1.27", to: "nginx:1.28" },
  ]);
});

test("without a detailed diff, the inputs are walked; bookkeeping inputs never show", () => {
  const log = changelog(meta({ a: { b: 1, c: 2 }, __provider: "x" }, { a: { b: 1, c: 3 }, __provider: "y" }));
  expect(log).toEqual([{ type: "update", path: ["a", "c"], from: 2, to: 3 }]);
});

test("a secret on either side shows as [secret] on both", () => {
  const sig = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "plain-s3cr3t" };
  const log = changelog(meta(
    { envVars: [{ key: "T", value: "[secret]" }], files: [] },
    { envVars: [{ key: "T", value: "live-s3cr3t" }], files: [sig] },
    { "envVars[0].value": { diffKind: "update" }, "files[0]": { diffKind: "add" } },
  ));
  expect(log).toEqual([
    { type: "update", path: ["envVars", "T", "value"], from: "[secret]", to: "[secret]" },
    { type: "create", path: ["files", "0"], to: "[secret]" },
  ]);
  expect(JSON.stringify(log)).not.toMatch(/s3cr3t/);
});

test("env vars and secret files are named by key, wherever the state's sorted list put them", () => {
  const secret = (value: string) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value });
  // The native SDK: the engine's detailed diff indexes the sorted list; a plain value beside a rotated secret shows its two values.
  const olds = { envVars: [{ key: "JWT_SECRET", value: "[secret]", secret: true }, { key: "MODE", value: "calm" }], secretFiles: [{ path: "/etc/a.json", content: "[secret]" }] };
  const news = { envVars: [{ key: "JWT_SECRET", value: "[secret]", secret: true }, { key: "MODE", value: "panic" }], secretFiles: [{ path: "/etc/a.json", content: "[secret]" }] };
  const native = changelog(meta(olds, news, { "envVars[0].value": { diffKind: "update" }, "envVars[1].value": { diffKind: "update" }, "secretFiles[0].content": { diffKind: "update" } }));
  expect(native).toEqual([
    { type: "update", path: ["envVars", "JWT_SECRET", "value"], from: "[secret]", to: "[secret]" },
    { type: "update", path: ["envVars", "MODE", "value"], from: "calm", to: "panic" },
    { type: "update", path: ["secretFiles", "/etc/a.json", "content"], from: "[secret]", to: "[secret]" },
  ]);
  // The provider's own account (its read's `__drift` output) names them by key on either SDK; the
  // dynamic SDK's inputs hold the lists as maps by key.
  const drift = [{ path: ["envVars", "JWT_SECRET", "value"], kind: "update" }, { path: ["envVars", "MODE", "value"], kind: "update" }, { path: ["envVars", "NEW"], kind: "add" }, { path: ["image"], kind: "update" }];
  const dynamic = {
    ...meta(
      { image: "a", envVars: { JWT_SECRET: { value: secret("old-s3cr3t"), secret: true }, MODE: { value: "calm" } } },
      { image: "b", envVars: { JWT_SECRET: { value: secret("new-s3cr3t"), secret: true }, MODE: { value: "panic" }, NEW: { value: "x" } } },
    ),
    type: "pulumi-nodejs:dynamic/cloudplatform:Service",
  } as StepEventMetadata;
  (dynamic.new as any).outputs = { __drift: drift };
  const expected = [
    { type: "update", path: ["envVars", "JWT_SECRET", "value"], from: "[secret]", to: "[secret]" },
    { type: "update", path: ["envVars", "MODE", "value"], from: "calm", to: "panic" },
    { type: "create", path: ["envVars", "NEW"], to: { value: "x" } },
    { type: "update", path: ["image"], from: "a", to: "b" },
  ];
  expect(changelog(dynamic)).toEqual(expected);
  const nativeDrift = meta(
    { image: "a", envVars: [{ key: "JWT_SECRET", value: "[secret]", secret: true }, { key: "MODE", value: "calm" }] },
    { image: "b", envVars: [{ key: "JWT_SECRET", value: "[secret]", secret: true }, { key: "MODE", value: "panic" }, { key: "NEW", value: "x" }] },
  );
  (nativeDrift.new as any).outputs = { __drift: drift };
  expect(changelog(nativeDrift)).toEqual(expected.map((c) => (c.path[1] === "NEW" ? { ...c, to: { key: "NEW", value: "x" } } : c)));
  expect(JSON.stringify(changelog(dynamic))).not.toMatch(/s3cr3t/);
  // ignoreChanges written against the native state's sorted list hides the change it names.
  const nativeFinding = { type: "changed" as const, urn: "urn:pulumi:s::p::cloudplatform:index:Service::web", resourceType: "cloudplatform:index:Service", changelog: changelog(nativeDrift) };
  expect(withoutIgnored([nativeFinding], new Map([[nativeFinding.urn, ["envVars[1].value", "image"]]]))[0].changelog!.map((c) => pathText(c.path, c.path[0] === "envVars" ? "cloudplatform:index:Service" : ""))).toEqual(["envVars[JWT_SECRET].value", "envVars[NEW]"]);
  // Shown as people read them; ignoreChanges written against the state's sorted list still applies.
  expect(pathText(["envVars", "MODE", "value"], "cloudplatform:index:Service")).toBe("envVars[MODE].value");
  expect(pathText(["secretFiles", "/etc/a.json", "content"], "pulumi-nodejs:dynamic/cloudplatform:Service")).toBe('secretFiles["/etc/a.json"].content');
  expect(pathText(["corsRules", "0", "allowedOrigins", "1"], "cloudplatform:index:Bucket")).toBe("corsRules[0].allowedOrigins[1]");
  const finding = { type: "changed" as const, urn: "urn:pulumi:s::p::cloudplatform:index:Service::web", resourceType: "cloudplatform:index:Service", changelog: native };
  const kept = withoutIgnored([finding], new Map([[finding.urn, ["envVars[1].value"]]]));
  expect(kept[0].changelog!.map((c) => c.path.join("."))).toEqual(["envVars.JWT_SECRET.value", "secretFiles./etc/a.json.content"]);
});

test("events: a deleted resource, a changed one, an unreadable one with its message; providers and components are not counted", () => {
  const c = new FindingCollector();
  const urn = (n: string) => `urn:pulumi:dev::p::cloudplatform:index:DnsRecord::${n}`;
  c.onEvent({ resOutputsEvent: { metadata: { op: "same", urn: "urn:pulumi:dev::p::pulumi:providers:cloudplatform::default", type: "pulumi:providers:cloudplatform", old: { custom: true } } } } as any);
  c.onEvent({ resOutputsEvent: { metadata: { op: "same", urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", type: "pulumi:pulumi:Stack", old: { custom: false } } } } as any);
  c.onEvent({ resOutputsEvent: { metadata: { op: "delete", urn: urn("a"), type: "cloudplatform:index:DnsRecord", old: { custom: true, id: "r1" } } } } as any);
  c.onEvent({ resOutputsEvent: { metadata: { ...meta({ x: 1 }, { x: 2 }), urn: urn("b"), old: { custom: true, inputs: { x: 1 } } } } } as any);
  c.onEvent({ resOpFailedEvent: { metadata: { op: "refresh", urn: urn("c"), type: "cloudplatform:index:DnsRecord" }, status: 0, steps: 0 } } as any);
  c.onEvent({ diagnosticEvent: { urn: urn("c"), severity: "error", message: "error: reading DnsRecord c: 503 Service Unavailable", color: "never" } } as any);
  expect(c.checked).toBe(3);
  expect(c.findings.map((f) => [f.type, f.urn.split("::").pop(), f.message])).toEqual([
    ["deleted", "a", undefined],
    ["changed", "b", undefined],
    ["unreadable", "c", "reading DnsRecord c: 503 Service Unavailable"],
  ]);
});

test("stack names, keys and shards: every stack in exactly one shard, the same one every time", () => {
  expect(parseStackName("organization/app/dev")).toEqual({ org: "organization", project: "app", stack: "dev" });
  expect(parseStackName("dev", "app")).toEqual({ project: "app", stack: "dev" });
  expect(() => parseStackName("dev")).toThrow(/org\/project\/stack/);
  expect(stackKey({ name: "organization/app/dev", project: "app", stack: "dev" })).toBe("app/dev");
  const targets = Array.from({ length: 40 }, (_, i) => ({ name: `organization/p${i % 5}/s${i}`, project: `p${i % 5}`, stack: `s${i}` }));
  const counts = targets.map((t) => [1, 2, 3].filter((index) => inShard(t, { index, count: 3 })).length);
  expect(counts.every((n) => n === 1)).toBe(true);
  expect(targets.filter((t) => inShard(t, { index: 2, count: 3 })).length).toBeGreaterThan(3);
});

test("failures are classified by the CLI's error line", () => {
  expect(classify(new Error("code: 255\n stdout: \n stderr: error: passphrase must be set with PULUMI_CONFIG_PASSPHRASE\n")).kind).toBe("passphrase");
  expect(classify(new Error("stderr: error: no resource plugin 'pulumi-resource-cloudplatform' found in the workspace or on your $PATH")).kind).toBe("plugin");
  expect(classify(new Error("stderr: error: reading Service web: 401 Unauthorized svc_live_abcdefabcdefabcdefabcdefabcdefabcdef")).message).not.toMatch(/abcdef/);
});

const stack = (name: string, status: StackReport["status"], extra: Partial<StackReport> = {}): StackReport => ({
  name, project: name.split("/")[1], stack: name.split("/")[2], status, resourcesChecked: 3, findings: [], durationMs: 10, ...extra,
});
const drifted = stack("organization/app/prod", "drifted", {
  findings: [
    { type: "changed", urn: "urn:pulumi:prod::app::cloudplatform:index:Service::web", resourceType: "cloudplatform:index:Service", changelog: [
      { type: "update", path: ["image"], from: "nginx:1.27", to: "nginx:1.28" },
      { type: "update", path: ["envVars", "TOKEN", "value"], from: "[secret]", to: "[secret]" },
    ] },
    { type: "deleted", urn: "urn:pulumi:prod::app::cloudplatform:index:DnsRecord::www", resourceType: "cloudplatform:index:DnsRecord" },
  ],
});

test("summary and exit code: 7 for drift, 1 when any stack failed", () => {
  const clean = stack("organization/app/dev", "clean");
  const failed = stack("organization/app/qa", "failed", { error: { kind: "passphrase", message: "passphrase must be set" } });
  expect(exitCode(buildReport([clean]))).toBe(0);
  const r = buildReport([drifted, clean]);
  expect(r.summary).toEqual({ stacksChecked: 2, stacksDrifted: 1, stacksFailed: 0, resourcesChecked: 6, resourcesDrifted: 2, resourcesUnreadable: 0 });
  expect(exitCode(r)).toBe(7);
  expect(exitCode(buildReport([drifted, failed]))).toBe(1);
  const merged = mergeReports([buildReport([drifted], { shard: "1/2" }), parseReport(JSON.stringify(buildReport([clean, failed], { shard: "2/2" })), "b.json")]);
  expect(merged.stacks.map((s) => s.name)).toEqual(["organization/app/dev", "organization/app/prod", "organization/app/qa"]);
  expect(merged.summary.stacksFailed).toBe(1);
  expect(merged.shard).toBeUndefined();
  expect(() => parseReport(JSON.stringify({ ...r, schemaVersion: 99 }), "new.json")).toThrow(/schemaVersion 99/);
  expect(() => parseReport("{}", "x.json")).toThrow(/not a cloudplatform-drift report/);
});

test("every format names each finding and shows a secret only as [secret]", () => {
  const r = buildReport([drifted, stack("organization/app/dev", "clean")]);
  for (const text of [render(r, "console"), render(r, "markdown"), render(r, "junit"), render(r, "json"), emailText(r), emailHtml(r)]) {
    expect(text).toMatch(/nginx:1\.28/);
    expect(text).toMatch(/\[secret\]/);
    expect(text).toMatch(/www/);
  }
  expect(render(r, "junit")).toMatch(/<testcase classname="app" name="organization\/app\/prod"[^>]*>\s*<failure message="2 resources drifted"/);
  expect(render(r, "markdown")).toMatch(/\| Service web \| update \| `envVars\[TOKEN\]\.value` \| `\[secret\]` \| `\[secret\]` \|/);
});

test("ignoreChanges paths from state hide the changes under them, and a finding left with none", () => {
  const { ignored, withoutIgnored } = jest.requireActual("../../provider/drift/findings") as typeof import("../../provider/drift/findings");
  expect(ignored(["description"], ["description"])).toBe(true);
  expect(ignored(["envVars", "1", "value"], ["envVars[1]"])).toBe(true);
  expect(ignored(["envVars", "1", "value"], ["envVars[*].value"])).toBe(true);
  expect(ignored(["envVars", "1", "key"], ["envVars[*].value"])).toBe(false);
  expect(ignored(["image"], ["description"])).toBe(false);
  const p = "urn:pulumi:dev::app::cloudplatform:index:Project::app";
  const s = "urn:pulumi:dev::app::cloudplatform:index:Service::web";
  const findings = [
    { type: "changed" as const, urn: p, resourceType: "cloudplatform:index:Project", changelog: [{ type: "update" as const, path: ["description"], from: "a", to: "b" }] },
    { type: "changed" as const, urn: s, resourceType: "cloudplatform:index:Service", changelog: [{ type: "update" as const, path: ["image"], from: "a", to: "b" }, { type: "update" as const, path: ["port"], from: 1, to: 2 }] },
    { type: "deleted" as const, urn: "urn:x", resourceType: "x" },
  ];
  expect(withoutIgnored(findings, new Map([[p, ["description"]], [s, ["port"]]]))).toEqual([
    { ...findings[1], changelog: [findings[1].changelog![0]] },
    findings[2],
  ]);
});

test("ignoreChanges are read from a file backend's checkpoint, in either layout, gzipped or not", () => {
  expect(fileBackendDir("file:///var/state")).toBe("/var/state");
  expect(fileBackendDir("file://~/state")).toBe(join(homedir(), "state"));
  expect(fileBackendDir("s3://bucket/state")).toBeUndefined();
  const dir = mkdtempSync(join(tmpdir(), "drift-ignores-"));
  try {
    const stacks = join(dir, ".pulumi", "stacks");
    mkdirSync(join(stacks, "app"), { recursive: true });
    const cp = (stack: string) => JSON.stringify({ version: 3, checkpoint: { stack, latest: { resources: [{ urn: `urn:${stack}`, ignoreChanges: ["description"] }] } } });
    writeFileSync(join(stacks, "app", "prod.json"), cp("prod"));
    writeFileSync(join(stacks, "app", "qa.json.gz"), gzipSync(cp("qa")));
    writeFileSync(join(stacks, "old.json"), cp("old"));
    expect(checkpointResources(dir, "app", "prod")).toEqual([{ urn: "urn:prod", ignoreChanges: ["description"] }]);
    expect(checkpointResources(dir, "app", "qa")?.[0].urn).toBe("urn:qa");
    expect(checkpointResources(dir, "app", "old")?.[0].urn).toBe("urn:old");
    // Not there: the caller falls back to `pulumi stack export`.
    expect(checkpointResources(dir, "app", "gone")).toBeUndefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
