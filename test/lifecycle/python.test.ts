// The Python SDK (sdk/python, built into .venv by `make python-sdk`) drives the native plugin from a
// Python program: the Automation API's inline program serves the language runtime itself, so no
// Python language host is needed. Up, an empty preview, drift found and repaired, destroy: for a
// Project with an Environment, and for a VerifiedMailDomain, a component the plugin builds.
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

/** Runs one of test/python's scripts with its own backend, home and work folder; resolves with its last line, parsed. */
async function runPython(script: string, env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  expect(`${PYTHON}: ${existsSync(PYTHON) ? "present" : "missing; run make python-sdk"}`).toBe(`${PYTHON}: present`);
  const base = join(dir, script);
  for (const d of ["backend", "home", "work"]) mkdirSync(join(base, d), { recursive: true });
  const { stdout } = await promisify(execFile)(PYTHON, [join(ROOT, "test", "python", script)], {
    env: {
      // The engine finds the plugin (bin/) and the CLI on PATH.
      PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`,
      PULUMI_ROOT: join(ROOT, ".tools"),
      PULUMI_HOME: join(base, "home"),
      PULUMI_BACKEND_URL: `file://${join(base, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      WORK_DIR: join(base, "work"),
      CLOUDPLATFORM_BASE_URL: emu.baseUrl,
      CLOUDPLATFORM_API_KEY: emu.apiKey,
      CLOUDPLATFORM_WORKSPACE_ID: emu.workspaceId,
      ...env,
    },
    timeout: 240_000,
  });
  return JSON.parse(stdout.trim().split("\n").pop()!);
}

test("a Python program: up, empty preview, drift repaired; an update and a replacement, refresh --yes and up, then no refresh change; destroy", async () => {
  expect(await runPython("lifecycle.py")).toEqual({
    // the stack, the project, its environment, a service and a zone
    up: { create: 5 },
    kind: "PROD",
    description: "v1",
    preview: {},
    drift: { update: 1 },
    // what the refresh found: the description, its only change
    driftRefresh: ["Project::app diff description", "Project::app inputs description"],
    repair: { update: 1 },
    repaired: "v1",
    change: { update: 1, replace: 1 },
    afterRefresh: {},
    // refresh --yes, refresh --preview-only, preview --refresh and up --refresh: no diff, no input rewritten
    refreshChanges: [],
    left: 0,
  });
  expect(await emu.leftovers()).toEqual({});
});

test("a Python program: VerifiedMailDomain built by the plugin, up, empty preview, a deleted record restored, destroy", async () => {
  emu.emu.settings.dnsPropagationMs = 300;
  await emu.control("POST", "/dns/delegations", { domain: "py-components.test" });
  expect(await runPython("components.py", { ZONE: "py-components.test" })).toEqual({
    // the stack, the zone and its verification, the component and its three children
    up: { create: 7 },
    status: "VERIFIED",
    childStatus: "VERIFIED",
    records: ["DKIM", "SPF", "MX", "DMARC"],
    platform: "VERIFIED",
    preview: {},
    // the record set puts the DKIM record back; the verification, found failing, verifies again
    drift: { update: 2 },
    repair: { update: 2 },
    repairedStatus: "VERIFIED",
    dkimBack: true,
    previewAfter: {},
    destroy: { delete: 7 },
    left: 0,
  });
  expect(await emu.leftovers()).toEqual({});
});
