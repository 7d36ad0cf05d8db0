// A workspace made through the REST API, adopted in one command and imported in each language:
// cloudplatform-adopt writes the bulk-import file (one project of two, with everything that is not
// in a project), `pulumi import --file` generates the program through the native plugin, and
// `cloudplatform-adopt secrets` completes it with the service's secrets read from config. The
// program compiles, holds no secret, previews empty, and destroy removes exactly the adopted
// objects: the project left out survives it. TypeScript runs as the stack's program; Python's
// generated program passes mypy --strict, and Go's go vet; both run as Automation API inline
// programs (no Python or Go language host can be had here; the stand-ins only generate programs).
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, TOOLS_BIN, type StackHandle } from "../../scripts/pulumi-env";
import { KINDS } from "../../provider/adopt/discover";
import type { CloudPlatformClient } from "../../provider/client";
import { expectAllGone, expectAllLive, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { verifiedCustomDomain, verifiedMailDomain, verifiedZone } from "../support/fixtures";
import { changes, expectNoDrift, pulumiCmd, testStack } from "../support/stack";
import { GO_ENV, GO_SDK, goModule, PYTHON, TSC, TSC_STRICT } from "../support/toolchains";

jest.setTimeout(600_000);
const run = promisify(execFile);
const ADOPT = join(ROOT, "dist", "provider", "adopt", "cli.js");
// The plugin and the CLI (with the language hosts) are found on PATH.
const PATH = `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`;

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
  // Under the repository, so a TypeScript program resolves pulumi-cloudplatform from node_modules.
  dir = mkdtempSync(join(ROOT, ".pulumi-state", "adopt-"));
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Workspace {
  project: string;
  keptProjectId: string;
  serviceId: string;
  /** Values that must never show in plain text. */
  secrets: string[];
}

/** Everything adopt covers, made as someone working outside Pulumi would; and a project it must leave alone. */
async function makeWorkspace(api: CloudPlatformClient, tag: string): Promise<Workspace> {
  emu.emu.settings.dnsPropagationMs = 0;
  const ws = emu.workspaceId;
  const project = await api.create<any>(`/v1/workspaces/${ws}/projects`, { name: `shop-${tag}`, description: "made by hand" });
  const kept = await api.create<any>(`/v1/workspaces/${ws}/projects`, { name: `kept-${tag}` });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "production" });
  const token = `tok-${tag}-s3cr3t-value`;
  const file = `{"password":"file-${tag}-s3cr3t"}`;
  const web = await api.create<any>(`/v1/environments/${env.id}/services`, {
    name: "web", type: "WEB", image: "nginx:1.27",
    envVars: [{ key: "MODE", value: "production" }, { key: "TOKEN", value: token, secret: true }],
    secretFiles: [{ path: "/etc/app/secret.json", content: file }],
  });
  await api.create<any>(`/v1/environments/${env.id}/services`, { name: "worker", type: "WEB", image: "nginx:1.27", envVars: [{ key: "QUEUE", value: "jobs" }] });

  const zone = `shop-${tag}.test`;
  const z = await verifiedZone(emu, api, zone);
  await api.create(`/v1/dns-zones/${z.id}/records`, { name: "@", type: "A", content: "203.0.113.10" });
  await api.create(`/v1/dns-zones/${z.id}/records`, { name: "blog", type: "CNAME", content: "ghost.example.net" });
  await verifiedMailDomain(api, ws, z.id, `mail.${zone}`);
  await verifiedCustomDomain(api, web.id, z.id, zone, "www");

  await api.post("/v1/suppressions", { address: `bounced-${tag}@example.org` }, { query: { workspaceId: ws } });
  const bucket = `shop-${tag}-assets`;
  await api.create<any>(`/v1/workspaces/${ws}/buckets`, { name: bucket, visibility: "PUBLIC_READ" });
  await api.put(`/v1/workspaces/${ws}/buckets/${bucket}/cors`, { rules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://www.example.com"] }] });
  await api.put(`/v1/workspaces/${ws}/buckets/${bucket}/policy`, { policy: JSON.stringify({ statements: [{ principals: ["*"], effect: "allow", actions: ["read"] }] }) });
  return { project: project.name, keptProjectId: kept.id, serviceId: web.id, secrets: [token, file] };
}

const RUNTIME = { typescript: "nodejs", python: "python", go: "go" } as const;
const PROGRAM = { typescript: "index.ts", python: "__main__.py", go: "main.go" } as const;

interface Adopted {
  s: StackHandle;
  programDir: string;
  program: string;
  text: string;
  /** What the CLI and the provider need beside the stack's own settings. */
  env: NodeJS.ProcessEnv;
}

/** adopt, pulumi import --file, adopt secrets: the program of `language`, in a stack of its own. */
async function adoptInto(language: keyof typeof RUNTIME, ws: Workspace): Promise<Adopted> {
  const programDir = join(dir, language);
  mkdirSync(programDir, { recursive: true });
  const runtime = language === "typescript" ? ["runtime:", "  name: nodejs", "  options:", "    typescript: true"] : [`runtime: ${RUNTIME[language]}`];
  writeFileSync(join(programDir, "Pulumi.yaml"), [`name: adopt-${language}`, ...runtime, ""].join("\n"));
  if (language === "typescript") writeFileSync(join(programDir, "package.json"), JSON.stringify({ name: "adopt-typescript", private: true }));
  const program = join(programDir, PROGRAM[language]);
  writeFileSync(program, "");
  const s = await testStack(emu, programDir, {}, { env: { PATH } });
  // The stack's own environment (backend, home, passphrase, the emulator), and where the CLI is.
  const env = { ...process.env, ...s.stack.workspace.envVars, PULUMI_ROOT: join(ROOT, ".tools") };
  const importFile = join(programDir, "adopt.json");
  const adopted = await run("node", [ADOPT, "--project", ws.project, "--type", KINDS.join(","), "--out", importFile], { env });
  expect(adopted.stderr).toMatch(/^workspace \S+: 13 objects to adopt: 1 Project, 1 Environment, 2 Service, 1 CustomDomain, 1 DnsZone, 1 MailDomain, 2 DnsRecordSet, 2 DnsRecord, 1 Suppression, 1 Bucket$/m);
  const fileText = readFileSync(importFile, "utf8");
  for (const secret of ws.secrets) expect(fileText).not.toContain(secret.slice(0, 12));

  const imported = await pulumiCmd(s, ["import", "--file", importFile, "--yes", "--stack", s.stack.name, "--protect=false", "--out", program]);
  expect(imported.stdout).toMatch(/= 13 imported/);
  expect(readFileSync(program, "utf8")).toMatch(/Service/);

  const completed = await run("node", [ADOPT, "secrets", "--file", importFile, "--program", program, "--stack", s.stack.name], { env, cwd: programDir });
  expect(completed.stderr).toMatch(/^set \S+-TOKEN \(env var TOKEN of service \S+\)$/m);
  const text = readFileSync(program, "utf8");
  // no secret in the program, the import file, or anything the commands printed
  for (const secret of ws.secrets) {
    for (const out of [text, adopted.stdout, adopted.stderr, imported.stdout, completed.stdout, completed.stderr]) expect(out).not.toContain(secret);
  }
  // ... and the stack's config holds them, encrypted
  const cfg = await s.stack.getAllConfig();
  const secretValues = Object.values(cfg).filter((v) => v.secret).map((v) => v.value).sort();
  expect(secretValues).toEqual([...ws.secrets].sort());
  return { s, programDir, program, text, env };
}

/** Destroy takes exactly what was adopted: every adopted object is gone, the other project stays. */
async function destroyAdopted(a: Adopted, ws: Workspace): Promise<void> {
  const api = emu.client();
  const owned = await stackResources(a.s.stack);
  expect(owned.length).toBe(13);
  await expectAllLive(emu, owned);
  const destroyed = await a.s.stack.destroy();
  // the 13 objects and the stack itself
  expect(destroyed.summary.resourceChanges?.delete).toBe(13 + 1);
  await expectAllGone(emu, owned);
  expect((await api.get<any>(`/v1/projects/${ws.keptProjectId}`)).name).toBe(`kept-${ws.project.slice(5)}`);
  await api.delete(`/v1/projects/${ws.keptProjectId}`);
  expect(await emu.leftovers()).toEqual({});
}

beforeEach(() => emu.control("POST", "/reset"));

test("TypeScript: adopt, import, secrets from config; the program compiles, previews empty, destroy takes exactly what was adopted", async () => {
  const ws = await makeWorkspace(emu.client(), "t");
  const a = await adoptInto("typescript", ws);
  try {
    expect(a.text).toContain('import * as cloudplatform from "pulumi-cloudplatform/native";');
    expect(a.text).toMatch(/value: config\.requireSecret\("shopTProductionWeb-TOKEN"\)/);
    expect(a.text).toMatch(/environmentId: shopTProduction\.id/);
    await run(TSC, [...TSC_STRICT, a.program], { cwd: ROOT });
    await expectNoDrift(a.s);
    await destroyAdopted(a, ws);
  } finally {
    await a.s.dispose();
  }
});

test("Python: adopt, import, secrets from config; the program compiles, previews empty, destroy takes exactly what was adopted", async () => {
  const ws = await makeWorkspace(emu.client(), "p");
  const a = await adoptInto("python", ws);
  try {
    expect(a.text).toContain("import pulumi_cloudplatform as cloudplatform");
    expect(a.text).toMatch(/"value": config\.require_secret\("shopPProductionWeb-TOKEN"\)/);
    await run(PYTHON, ["-m", "py_compile", a.program]);
    await run(PYTHON, ["-m", "mypy", "--strict", "--no-incremental", a.program], { cwd: a.programDir });
    const { stdout } = await run(PYTHON, [join(ROOT, "test", "python", "adopted.py")], {
      env: { ...a.env, PROGRAM: a.program, STACK: a.s.stack.name, PROJECT: "adopt-python" },
    });
    expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ preview: {} });
    await destroyAdopted(a, ws);
  } finally {
    await a.s.dispose();
  }
});

test("Go: adopt, import, secrets from config; the program passes go vet, previews empty, destroy takes exactly what was adopted", async () => {
  const ws = await makeWorkspace(emu.client(), "g");
  const a = await adoptInto("go", ws);
  try {
    expect(a.text).toContain(`"${GO_SDK}/cloudplatform"`);
    expect(a.text).toMatch(/Value: cfg\.RequireSecret\("shopGProductionWeb-TOKEN"\)/);
    // One module: the program as generated and completed (./program), and the same code renamed
    // into the inline harness (the root package), so vet checks the one and the harness runs the other.
    const mod = join(dir, "go-module");
    mkdirSync(join(mod, "program"), { recursive: true });
    goModule(mod, "adopted");
    writeFileSync(join(mod, "program", "main.go"), a.text);
    const inline = a.text.replace(/^func main\(\) \{$/m, "func adoptedMain() {").replace(/\bpulumi\.Run\(/, "capture(");
    expect(inline).toContain("func adoptedMain() {");
    writeFileSync(join(mod, "adopted.go"), inline);
    copyFileSync(join(ROOT, "test", "adopt-go", "harness.go"), join(mod, "harness.go"));
    // A cold build of the Pulumi Go SDK takes minutes; the Go SDK test warms the same cache.
    await run("go", ["vet", "./..."], { cwd: mod, env: GO_ENV, timeout: 900_000 });
    await run("go", ["build", "-o", "adopted-preview", "."], { cwd: mod, env: GO_ENV, timeout: 900_000 });
    const { stdout } = await run(join(mod, "adopted-preview"), [], {
      env: { ...a.env, STACK: a.s.stack.name, PROJECT: "adopt-go", WORK_DIR: a.programDir },
    });
    expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ preview: {} });
    await destroyAdopted(a, ws);
  } finally {
    await a.s.dispose();
  }
}, 1_200_000);
