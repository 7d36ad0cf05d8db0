// cloudplatform-adopt against the in-process emulator, with objects made through the REST API:
// what it finds, the import ids, the names, parents before children, secrets left out of the
// import, the filters; and the names and the program completion on their own.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";
import { makeContext } from "../../provider/config";
import { Operations } from "../../provider/operations";
import type { Context } from "../../provider/resources/framework";
import { adopt, serviceSecrets } from "../../provider/adopt/cli";
import { assignNames, camelName } from "../../provider/adopt/names";
import { completeProgram, configKeys } from "../../provider/adopt/program";
import { emulator, type TestEmulator } from "../support/emulator";
import { makeEverything, type Made } from "../support/fixtures";

let emu: TestEmulator;
let ctx: Context;
let made: Made;
let dir: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl, workspaceId: emu.workspaceId });
  dir = mkdtempSync(join(tmpdir(), "adopt-"));
  made = await makeEverything(emu, emu.client(), "a", dir);
});
afterAll(async () => {
  await ctx?.client.close();
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

const T = (kind: string) => `cloudplatform:index:${kind}`;

test("every kind is found with its import id, parents first, named from the platform names", async () => {
  const { file, summary } = await adopt(ctx, {});
  const rows = file.resources.map((r) => [r.type.split(":")[2], r.name, r.id, r.parent ?? null]);
  const ws = emu.workspaceId;
  expect(rows).toEqual([
    ["Project", "legacyA", made.projectId, null],
    ["Environment", "legacyAProduction", made.environmentId, "legacyA"],
    // the web service's secrets stay out of the import
    ["Service", "legacyAProductionWeb", `${made.serviceId}?omit=envVars,secretFiles`, "legacyAProduction"],
    ["Service", "legacyAProductionWorker", `${made.otherServiceId}?omit=secretFiles`, "legacyAProduction"],
    ["CustomDomain", "shopLegacyATest", `${made.serviceId}/${made.customDomainId}`, "legacyAProductionWeb"],
    ["DnsZone", "legacyATest", made.zoneId, null],
    ["MailDomain", "mailLegacyATest", `${ws}/${made.mailDomainId}`, null],
    // the records a mail domain and a custom domain need, as one set each
    ["DnsRecordSet", "mailLegacyATestRecords", expect.stringMatching(new RegExp(`^${made.zoneId}/[^,]+(,[^,]+){3}$`)), "legacyATest"],
    ["DnsRecordSet", "shopLegacyATestRecords", expect.stringMatching(new RegExp(`^${made.zoneId}/[^,]+$`)), "legacyATest"],
    ["DnsRecord", expect.stringMatching(/^legacyATest(Apex|Www)(A|Txt|Cname)$/), expect.stringMatching(`^${made.zoneId}/`), "legacyATest"],
    ["DnsRecord", expect.stringMatching(/^legacyATest(Apex|Www)(A|Txt|Cname)$/), expect.stringMatching(`^${made.zoneId}/`), "legacyATest"],
    ["DnsRecord", expect.stringMatching(/^legacyATest(Apex|Www)(A|Txt|Cname)$/), expect.stringMatching(`^${made.zoneId}/`), "legacyATest"],
    ["Suppression", "bouncedASuppressed", `${ws}/${made.address}`, null],
    ["Bucket", "legacyAAssets", `${ws}/${made.region}/${made.bucket}`, null],
  ]);
  expect(new Set(rows.map((r) => r[1])).size).toBe(rows.length);
  expect(file.resources.filter((r) => r.type === T("DnsRecord")).map((r) => r.id).sort()).toEqual(
    [made.importIds.DnsRecord, ...made.importIds.DnsRecordSet.split("/")[1].split(",").map((id) => `${made.zoneId}/${id}`)].sort(),
  );
  // the published site is left out, with the reason; nothing else is
  expect(summary).toMatch(/^left out: static site legacy-a\/production\/docs: its content cannot be read back; declare it as a StaticSite with its path and import it by id \S+$/m);
  expect(summary.match(/^left out:/gm)).toHaveLength(1);
  expect(summary).toMatch(/^2 service\(s\) hold secrets, left out of the import: after pulumi import, run cloudplatform-adopt secrets/m);
});

test("a service's secrets stay out of the import; the program gets them back from config", async () => {
  const { file } = await adopt(ctx, { types: ["Service"] });
  // the worker's lone variable is not secret, and it has a secret file
  expect(file.resources.map((r) => r.id)).toEqual([`${made.serviceId}?omit=envVars,secretFiles`, `${made.otherServiceId}?omit=secretFiles`]);
  expect(JSON.stringify(file)).not.toMatch(/s3cr3t/);

  const { services, values } = await serviceSecrets(ctx, file);
  expect(services).toEqual([
    {
      name: "legacyAProductionWeb",
      envVars: [
        { key: "MODE", scope: "ALL", secret: false, value: "production" },
        { key: "TOKEN", scope: "ALL", secret: true, configKey: "legacyAProductionWeb-TOKEN" },
      ],
      secretFiles: [{ path: "/etc/app/secret.json", configKey: "legacyAProductionWeb-file-etc-app-secret.json" }],
    },
    { name: "legacyAProductionWorker", secretFiles: [{ path: "/etc/lone.txt", configKey: "legacyAProductionWorker-file-etc-lone.txt" }] },
  ]);
  expect([...values].map(([k, v]) => [k, v.value])).toEqual([
    ["legacyAProductionWeb-TOKEN", made.secrets[0]],
    ["legacyAProductionWeb-file-etc-app-secret.json", made.secrets[1]],
    ["legacyAProductionWorker-file-etc-lone.txt", made.secrets[3]],
  ]);
});

test("an import id with ?omit= leaves those inputs out of the import's inputs, the outputs still hold them; an unknown input is refused", async () => {
  const ops = new Operations({ apiKey: emu.apiKey, baseUrl: emu.baseUrl, workspaceId: emu.workspaceId });
  try {
    const r = await ops.read("Service", `${made.serviceId}?omit=envVars,secretFiles`, {});
    expect(r.id).toBe(made.serviceId);
    expect(Object.keys(r.inputs as object)).toEqual(expect.arrayContaining(["environmentId", "name", "image"]));
    expect(r.inputs).not.toHaveProperty("envVars");
    expect(r.inputs).not.toHaveProperty("secretFiles");
    expect((r.props as { envVars: { key: string }[] }).envVars.map((v) => v.key)).toEqual(["MODE", "TOKEN"]);
    expect((r.props as { secretFiles: { path: string }[] }).secretFiles.map((f) => f.path)).toEqual(["/etc/app/secret.json"]);
    // without it, the import takes every input; a read of state never parses it
    expect(await ops.read("Service", made.serviceId, {})).toMatchObject({ inputs: { envVars: expect.any(Array), secretFiles: expect.any(Array) } });
    await expect(ops.read("Service", `${made.serviceId}?omit=envVars,nope`, {})).rejects.toThrow(`import id '${made.serviceId}?omit=envVars,nope': ?omit= names nope, not an input of Service`);
  } finally {
    await ops.context().client.close();
  }
});

test("filters: by project (its objects only), by type, and an unknown project is refused", async () => {
  const byProject = await adopt(ctx, { projects: ["legacy-a"] });
  expect([...new Set(byProject.file.resources.map((r) => r.type.split(":")[2]))]).toEqual(["Project", "Environment", "Service", "CustomDomain"]);
  expect(byProject.file.resources.filter((r) => r.type === T("Project")).map((r) => r.id)).toEqual([made.projectId]);
  const zonesToo = await adopt(ctx, { projects: [made.projectId], types: ["Service", "DnsZone"] });
  expect(zonesToo.file.resources.map((r) => [r.type.split(":")[2], r.parent ?? null])).toEqual([
    ["Service", null], ["Service", null], ["DnsZone", null],
  ]);
  await expect(adopt(ctx, { projects: ["nope"] })).rejects.toThrow(/--project nope: no project of that name or id/);
});

test("names: camelCase identifiers, kind added to reserved words, digits and clashes, numbered by id", () => {
  expect(camelName(["legacy-f", "production", "web app"])).toBe("legacyFProductionWebApp");
  expect(camelName(["shop.example.com"])).toBe("shopExampleCom");
  const items = [
    { kind: "Project", parts: ["default"], tiebreak: "1" },
    { kind: "Project", parts: ["42-things"], tiebreak: "2" },
    { kind: "Project", parts: ["shop"], tiebreak: "3" },
    { kind: "Bucket", parts: ["shop"], tiebreak: "4" },
    { kind: "DnsZone", parts: ["Shop"], tiebreak: "5" },
    { kind: "Bucket", parts: ["a-b"], tiebreak: "7" },
    { kind: "Bucket", parts: ["a.b"], tiebreak: "6" },
    { kind: "Suppression", parts: ["åé"], tiebreak: "8" },
  ];
  expect(assignNames(items)).toEqual(["defaultProject", "project42Things", "shopProject", "shopBucket", "shopDnsZone", "aBBucket2", "aBBucket", "ae"]);
});

test("the program gets each left-out argument, secrets read from config, in TypeScript, Python and Go; a second run changes nothing", () => {
  const keys = configKeys("web", ["TOKEN"], ["/etc/a b.json"]);
  expect([...keys.vars.values(), ...keys.files.values()]).toEqual(["web-TOKEN", "web-file-etc-a-b.json"]);
  const services = [{
    name: "web",
    envVars: [{ key: "MODE", scope: "ALL", secret: false, value: "on" }, { key: "TOKEN", scope: "ALL", secret: true, configKey: "web-TOKEN" }],
    secretFiles: [{ path: "/etc/a b.json", configKey: "web-file-etc-a-b.json" }],
  }];
  const ts = [
    'import * as pulumi from "@pulumi/pulumi";',
    'import * as cloudplatform from "pulumi-cloudplatform/native";',
    "",
    'const web = new cloudplatform.Service("web", {',
    '    environmentId: "e",',
    "});",
    "",
  ].join("\n");
  const tsDone = completeProgram(ts, "typescript", services);
  expect(tsDone).toBe([
    'import * as pulumi from "@pulumi/pulumi";',
    'import * as cloudplatform from "pulumi-cloudplatform/native";',
    "",
    "const config = new pulumi.Config();",
    "",
    'const web = new cloudplatform.Service("web", {',
    "    envVars: [",
    '        { key: "MODE", scope: "ALL", secret: false, value: "on" },',
    '        { key: "TOKEN", scope: "ALL", secret: true, value: config.requireSecret("web-TOKEN") },',
    "    ],",
    "    secretFiles: [",
    '        { path: "/etc/a b.json", content: config.requireSecret("web-file-etc-a-b.json") },',
    "    ],",
    '    environmentId: "e",',
    "});",
    "",
  ].join("\n"));
  expect(completeProgram(tsDone, "typescript", services)).toBe(tsDone);

  const py = ["import pulumi", "import pulumi_cloudplatform as cloudplatform", "", 'web = cloudplatform.Service("web",', '    environment_id="e")', ""].join("\n");
  const pyDone = completeProgram(py, "python", services);
  expect(pyDone).toContain('config = pulumi.Config()\n\nweb = cloudplatform.Service("web",\n    env_vars=[\n');
  expect(pyDone).toContain('        {"key": "TOKEN", "scope": "ALL", "secret": True, "value": config.require_secret("web-TOKEN")},\n');
  expect(pyDone).toContain('    secret_files=[\n        {"path": "/etc/a b.json", "content": config.require_secret("web-file-etc-a-b.json")},\n    ],\n    environment_id="e")');

  const go = [
    "package main", "", "import (", '\t"example.com/sdk/go/cloudplatform"', '\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"', ")", "",
    "func main() {", "\tpulumi.Run(func(ctx *pulumi.Context) error {", '\t\t_, err := cloudplatform.NewService(ctx, "web", &cloudplatform.ServiceArgs{',
    '\t\t\tEnvironmentId: pulumi.String("e"),', "\t\t})", "\t\treturn err", "\t})", "}", "",
  ].join("\n");
  const goDone = completeProgram(go, "go", services);
  expect(goDone).toContain('\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"\n\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"\n');
  expect(goDone).toContain('error {\n\t\tcfg := config.New(ctx, "")\n');
  expect(goDone).toContain('\t\t\t\t&cloudplatform.ServiceEnvVarArgs{Key: pulumi.String("TOKEN"), Scope: pulumi.String("ALL"), Secret: pulumi.Bool(true), Value: cfg.RequireSecret("web-TOKEN")},\n');
  expect(completeProgram(goDone, "go", services)).toBe(goDone);
  expect(() => completeProgram(ts, "typescript", [{ ...services[0], name: "other" }])).toThrow(/no Service named "other"/);
});

test("the command: --help, and without a key it names what to set; it never takes a key on the command line", async () => {
  const cli = join(ROOT, "dist", "provider", "adopt", "cli.js");
  const env = { PATH: process.env.PATH ?? "" };
  const help = await promisify(execFile)("node", [cli, "--help"], { env });
  expect(help.stdout).toMatch(/^usage: cloudplatform-adopt \[--project NAME\|ID\]\.\.\. \[--type TYPE\]\.\.\./);
  expect(help.stdout).not.toMatch(/--api-key/);
  const refused = await promisify(execFile)("node", [cli, "--out", join(dir, "x.json")], { env }).then(() => undefined, (e: { stderr: string; code: number }) => e);
  expect(refused?.code).toBe(1);
  expect(refused?.stderr).toMatch(/^cloudplatform-adopt: No API key: run `pulumi config set --secret cloudplatform:apiKey <key>` or set CLOUDPLATFORM_API_KEY\n$/);
  const badType = await promisify(execFile)("node", [cli, "--type", "Widget"], { env: { ...env, CLOUDPLATFORM_API_KEY: emu.apiKey, CLOUDPLATFORM_BASE_URL: emu.baseUrl } })
    .then(() => undefined, (e: { stderr: string }) => e);
  expect(badType?.stderr).toMatch(/--type Widget: expected one of Project, Environment, Service, CustomDomain, DnsZone, MailDomain, DnsRecordSet, DnsRecord, Suppression, Bucket/);
});

test("secrets --print: sets nothing, prints each command without its value; a read-only key's blanked secrets are printed to set by hand", async () => {
  const cli = join(ROOT, "dist", "provider", "adopt", "cli.js");
  const { file } = await adopt(ctx, { types: ["Service"] });
  const importFile = join(dir, "print.json");
  writeFileSync(importFile, JSON.stringify(file));
  const program = join(dir, "index.ts");
  const source = [
    'import * as pulumi from "@pulumi/pulumi";',
    'import * as cloudplatform from "pulumi-cloudplatform/native";',
    "",
    'const legacyAProductionWeb = new cloudplatform.Service("legacyAProductionWeb", {',
    '    name: "web",',
    "});",
    'const legacyAProductionWorker = new cloudplatform.Service("legacyAProductionWorker", {',
    '    name: "worker",',
    "});",
    "",
  ].join("\n");
  for (const [key, print] of [[emu.apiKey, true], [emu.keys.readOnly, false]] as const) {
    writeFileSync(program, source);
    const env = { PATH: process.env.PATH ?? "", CLOUDPLATFORM_API_KEY: key, CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_WORKSPACE_ID: emu.workspaceId };
    const out = await promisify(execFile)("node", [cli, "secrets", "--file", importFile, "--program", program, "--stack", "dev", ...(print ? ["--print"] : [])], { env });
    const blank = print ? "" : ": the API shows it blank; set it by hand";
    expect(out.stdout).toBe([
      `pulumi config set --secret --stack dev legacyAProductionWeb-TOKEN   # env var TOKEN of service legacyAProductionWeb${blank}`,
      `pulumi config set --secret --stack dev legacyAProductionWeb-file-etc-app-secret.json   # secret file /etc/app/secret.json of service legacyAProductionWeb${blank}`,
      `pulumi config set --secret --stack dev legacyAProductionWorker-file-etc-lone.txt   # secret file /etc/lone.txt of service legacyAProductionWorker${blank}`,
      "",
    ].join("\n"));
    for (const secret of made.secrets) expect(out.stdout + out.stderr).not.toContain(secret);
    // the program reads them from config all the same
    const text = readFileSync(program, "utf8");
    expect(text).toContain('value: config.requireSecret("legacyAProductionWeb-TOKEN")');
    expect(text).toContain('content: config.requireSecret("legacyAProductionWorker-file-etc-lone.txt")');
  }
});
