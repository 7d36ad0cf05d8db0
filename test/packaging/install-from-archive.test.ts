// Installing the plugin before a release: `make plugin` archives, then
// `pulumi plugin install resource cloudplatform <version> --file <archive>` into a PULUMI_HOME of
// its own. Programs in folders outside the checkout, with no plugin on PATH, then use it: a Python
// program and a Go program (Automation API inline programs: no Python or Go language host here),
// and a YAML program (runtime: yaml, through pulumi-language-yaml from `make tools`): up, an
// empty preview, `pulumi import` into the YAML project, destroy.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { openStack, ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { pluginArchives } from "../support/plugin-archives";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, pulumiCmd } from "../support/stack";
import { GO_ENV, goModule, PYTHON } from "../support/toolchains";

jest.setTimeout(900_000);

const run = promisify(execFile);
const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
const platform = `${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;
// The CLI and language hosts, node for the plugin's launcher; no bin/ of the checkout.
const PATH = `${TOOLS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`;

let emu: TestEmulator;
let dir: string;
let home: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-archive-"));
  home = join(dir, "home");
  const out = join(dir, "dist-plugin");
  await pluginArchives(out);
  const archive = join(out, `pulumi-resource-cloudplatform-v${VERSION}-${platform}.tar.gz`);
  // The documented command, run from the folder outside the checkout.
  await run(join(TOOLS_BIN, "pulumi"), ["plugin", "install", "resource", "cloudplatform", VERSION, "--file", archive], {
    cwd: dir, env: { ...process.env, PATH, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" },
  });
  emu = await emulator({ speed: 0 });
}, 900_000);
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The environment of a program outside the checkout: its own backend, the shared PULUMI_HOME with the installed plugin. */
function programEnv(label: string): Record<string, string> {
  const base = join(dir, label);
  for (const d of ["backend", "work"]) mkdirSync(join(base, d), { recursive: true });
  return {
    PATH,
    HOME: process.env.HOME ?? dir,
    PULUMI_ROOT: join(ROOT, ".tools"),
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${join(base, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
    WORK_DIR: join(base, "work"),
    CLOUDPLATFORM_BASE_URL: emu.baseUrl,
    CLOUDPLATFORM_API_KEY: emu.apiKey,
  };
}

const lastLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").pop()!);

test("the archive installs where the engine looks for plugins", () => {
  expect(existsSync(join(home, "plugins", `resource-cloudplatform-v${VERSION}`, "pulumi-resource-cloudplatform"))).toBe(true);
});

test("a Python program outside the checkout: up, empty preview, destroy with the installed plugin", async () => {
  expect(`${PYTHON}: ${existsSync(PYTHON) ? "present" : "missing; run make python-sdk"}`).toBe(`${PYTHON}: present`);
  const { stdout } = await run(PYTHON, [join(ROOT, "test", "archive", "program.py")], { cwd: dir, env: programEnv("python"), timeout: 300_000 });
  expect(lastLine(stdout)).toEqual({ up: { create: 3 }, kind: "PROD", preview: {}, destroy: { delete: 3 } });
  expect(await emu.leftovers()).toEqual({});
});

test("a Go program outside the checkout: up, empty preview, destroy with the installed plugin", async () => {
  const src = join(dir, "go-src");
  mkdirSync(src);
  copyFileSync(join(ROOT, "test", "archive", "main.go"), join(src, "main.go"));
  goModule(src, "example.test/archive");
  const bin = join(dir, "go-archive");
  await run("go", ["build", "-o", bin, "."], { cwd: src, env: GO_ENV, timeout: 900_000 });
  const { stdout } = await run(bin, [], { cwd: dir, env: programEnv("go"), timeout: 300_000 });
  expect(lastLine(stdout)).toEqual({ up: { create: 3 }, kind: "PROD", preview: {}, destroy: { delete: 3 } });
  expect(await emu.leftovers()).toEqual({});
}, 900_000);

test("a YAML program outside the checkout: resources and a component up, empty preview, pulumi import, destroy", async () => {
  const zone = "archive-yaml.test";
  await emu.control("POST", "/dns/delegations", { domain: zone });
  const program = join(dir, "yaml-program");
  mkdirSync(program);
  const source = readFileSync(join(ROOT, "test", "archive", "yaml", "Pulumi.yaml"), "utf8");
  writeFileSync(join(program, "Pulumi.yaml"), source);
  const env = programEnv("yaml");
  const s = await openStack({ programDir: program, stateDir: join(dir, "yaml-state"), stackName: "yaml", env: { ...env, PULUMI_HOME: home }, config: { zone } });
  try {
    const up = await s.stack.up();
    // the stack, project, environment, zone, its verification, the component and its three children
    expect(changes(up)).toEqual({ create: 9 });
    expect([up.outputs.kind.value, up.outputs.mailStatus.value]).toEqual(["PROD", "VERIFIED"]);
    expect(up.stdout).not.toContain("from $PATH");
    expect(changes(await s.stack.preview({ refresh: true, expectNoChanges: true }))).toEqual({});

    // A project made outside Pulumi, adopted into the YAML project: the generated YAML declares it.
    const api = emu.client();
    const made = await api.post<{ id: string }>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "adopted-yaml", description: "made by hand" });
    const code = join(dir, "imported.yaml");
    const imported = await pulumiCmd(s, ["import", "cloudplatform:index:Project", "adopted", made.id, "--yes", "--stack", "yaml", "--protect=false", "--out", code]);
    expect(imported.stdout).toMatch(/1 imported/);
    const generated = readFileSync(code, "utf8");
    expect(generated).toMatch(/type: cloudplatform:(index:)?Project/);
    expect(generated).toMatch(/name: adopted-yaml/);
    // The generated resource, added to the program, matches what was imported: no change.
    const resources = generated.slice(generated.indexOf("resources:") + "resources:".length).replace(/\n+$/, "");
    writeFileSync(join(program, "Pulumi.yaml"), source.replace(/\nresources:\n/, `\nresources:${resources}\n`));
    expect(changes(await s.stack.preview({ refresh: true, expectNoChanges: true }))).toEqual({});

    const down = await s.stack.destroy();
    // with the adopted project
    expect(down.summary.resourceChanges).toEqual({ delete: 10 });
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
