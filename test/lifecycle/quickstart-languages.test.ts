// The Python and Go quickstarts (examples/quickstart-python, examples/quickstart-go) run their own
// program files through the native plugin. With the official CLI their language hosts run them; none
// can be had here, so each runs as an Automation API inline program: Python's __main__.py through
// runpy (test/python/example.py), Go's main.go built into a harness that captures its pulumi.Run
// (test/examples-go/harness.go). Up, an empty preview with a refresh, destroy, nothing left.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { GO_ENV, goExampleModule, PYTHON } from "../support/toolchains";
import { EXAMPLES } from "../support/stack";

jest.setTimeout(900_000);

const run = promisify(execFile);

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-quickstarts-"));
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The environment of one run: the plugin (bin/) and the CLI on PATH, a backend, home and work folder of its own. */
function stackEnv(name: string): Record<string, string> {
  const base = join(dir, name);
  for (const d of ["backend", "home", "work"]) mkdirSync(join(base, d), { recursive: true });
  return {
    PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`,
    HOME: process.env.HOME ?? base,
    PULUMI_ROOT: join(ROOT, ".tools"),
    PULUMI_HOME: join(base, "home"),
    PULUMI_BACKEND_URL: `file://${join(base, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    WORK_DIR: join(base, "work"),
    CLOUDPLATFORM_BASE_URL: emu.baseUrl,
    CLOUDPLATFORM_API_KEY: emu.apiKey,
  };
}

const lastLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").pop()!);

test("examples/quickstart-python: its __main__.py, up, empty preview, destroy", async () => {
  expect(`${PYTHON}: ${existsSync(PYTHON) ? "present" : "missing; run make python-sdk"}`).toBe(`${PYTHON}: present`);
  const { stdout } = await run(PYTHON, [join(ROOT, "test", "python", "example.py")], {
    env: { ...stackEnv("python"), EXAMPLE_DIR: join(EXAMPLES, "quickstart-python") },
    timeout: 300_000,
  });
  expect(lastLine(stdout)).toEqual({
    up: { create: 4 }, // the stack, the project and two environments
    outputs: ["environments", "projectId", "region"],
    environments: ["production", "staging"],
    preview: {},
    destroy: { delete: 4 },
    left: 0,
  });
  expect(await emu.leftovers()).toEqual({});
});

test("examples/quickstart-go: its main.go, up, empty preview, destroy", async () => {
  const mod = join(dir, "go-module");
  mkdirSync(mod);
  goExampleModule(mod, "quickstart-go");
  // A cold build (the Pulumi Go SDK and its dependencies) takes minutes; later ones are cached.
  await run("go", ["build", "-o", join(dir, "quickstart-go"), "."], { cwd: mod, env: GO_ENV, timeout: 900_000 });
  const { stdout } = await run(join(dir, "quickstart-go"), [], { env: { ...stackEnv("go"), PROJECT: "quickstart-go" }, timeout: 300_000 });
  expect(lastLine(stdout)).toEqual({
    up: { create: 4 },
    outputs: ["environments", "projectId", "region"],
    preview: {},
    destroy: { delete: 4 },
  });
  expect(await emu.leftovers()).toEqual({});
});
