// The Python SDK (sdk/python, built into .venv by `make python-sdk`) drives the native plugin from a
// Python program: the Automation API's inline program serves the language runtime itself, so no
// Python language host is needed. Up, an empty preview, drift found and repaired, destroy.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";

jest.setTimeout(300_000);

const PYTHON = join(ROOT, ".venv", "bin", "python");

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-python-"));
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a Python program: Project and Environment through the plugin, up, empty preview, drift repaired, destroy", async () => {
  expect(`${PYTHON}: ${existsSync(PYTHON) ? "present" : "missing; run make python-sdk"}`).toBe(`${PYTHON}: present`);
  for (const d of ["backend", "home", "work"]) mkdirSync(join(dir, d));
  const { stdout } = await promisify(execFile)(PYTHON, [join(ROOT, "test", "python", "lifecycle.py")], {
    env: {
      // The engine finds the plugin (bin/) and the CLI on PATH.
      PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`,
      PULUMI_ROOT: join(ROOT, ".tools"),
      PULUMI_HOME: join(dir, "home"),
      PULUMI_BACKEND_URL: `file://${join(dir, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      WORK_DIR: join(dir, "work"),
      CLOUDPLATFORM_BASE_URL: emu.baseUrl,
      CLOUDPLATFORM_API_KEY: emu.apiKey,
    },
    timeout: 240_000,
  });
  expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({
    up: { create: 3 },
    kind: "PROD",
    description: "v1",
    preview: {},
    drift: { update: 1 },
    repair: { update: 1 },
    repaired: "v1",
    left: 0,
  });
  expect(await emu.leftovers()).toEqual({});
});
