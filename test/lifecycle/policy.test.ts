// CloudPlatformGuard through the real CLI: `pulumi preview --policy-pack examples/policy/guard`
// starts the pack through the Node.js language host's RunPlugin (the project's stand-in host).
// Mandatory violations fail the preview naming the resource, the policy and the remediation, with
// exit code 1 on the pinned CLI and on the newest one (the CI gate turns them into 5); advisory
// ones warn; a clean program passes. The same pack checks a Python program through the Automation API.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { EXAMPLES, testStack } from "../support/stack";

jest.setTimeout(600_000);

const GUARD = join(EXAMPLES, "policy", "guard");
const GATE = join(EXAMPLES, "policy", "ci", "policy-gate.js");

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
});
afterAll(async () => emu?.close());

type Stack = Awaited<ReturnType<typeof testStack>>;

/** Runs a command in the stack's folder and environment, as a user's shell would: its exit code and output. */
async function run(s: Stack, file: string, args: string[], extraPath = ""): Promise<{ code: number; out: string }> {
  const ws = s.stack.workspace as unknown as { envVars: Record<string, string>; workDir: string };
  const env = { ...process.env, ...ws.envVars, PATH: `${extraPath}${ws.envVars.PATH ?? process.env.PATH}` };
  try {
    const { stdout } = await promisify(execFile)(file, args, { cwd: ws.workDir, env, maxBuffer: 16 << 20 });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}
const preview = (s: Stack) => run(s, "pulumi", ["preview", "--non-interactive", "--stack", s.stack.name, "--policy-pack", GUARD]);
const gate = (s: Stack, extraPath = "") => run(s, "node", [GATE, "--policy-pack", GUARD, "--stack", s.stack.name], extraPath);

test("a TypeScript program with mandatory violations: the preview fails naming resource, policy and remediation; the gate exits 5", async () => {
  const s = await testStack(emu, "policy", { mode: "mandatory" });
  try {
    const failed = await preview(s);
    // CLI 3.248 defines exit code 5 for policy violations but exits 1 for a preview they fail.
    expect(failed.code).toBe(1);
    const out = failed.out;
    expect(out).toContain("❌ cloudplatform-guard@v0.1.0");
    expect(out).toMatch(/\[mandatory\] +cloudplatform-no-public-buckets +\(pulumi-nodejs:dynamic\/cloudplatform:Bucket: uploads\)/);
    expect(out).toContain("Remediation: set the Bucket's `visibility` to \"PRIVATE\"");
    expect(out).toMatch(/\[mandatory\] +cloudplatform-no-free-tier-in-production +\(pulumi-nodejs:dynamic\/cloudplatform:Service: web\)/);
    expect(out).toContain("Remediation: set the Service's `tier`");
    expect(out).toMatch(/\[mandatory\] +cloudplatform-secret-env-vars +\(pulumi-nodejs:dynamic\/cloudplatform:Service: web\)/);
    expect(out).toMatch(/\[advisory\] +cloudplatform-web-health-check/);

    const g = await gate(s);
    expect(g.code).toBe(5);
    expect(g.out).toContain("[mandatory] cloudplatform-guard/cloudplatform-no-public-buckets on urn:pulumi:");
    expect(g.out).toContain("3 mandatory policy violation(s); pulumi preview exited 1");
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

// The newest CLI the toolchain builds (`make compat`, as test/compat/newest.test.ts): a preview that
// mandatory policies fail still exits 1 there, as in every release since v3.226.0; the gate exits 5.
const NEWEST_BIN = join(ROOT, ".tools", process.env.COMPAT_PULUMI_VERSION ?? "v3.274.1", "bin");
test("the newest CLI: the gate names the violations, pulumi preview exits 1 and the gate 5", async () => {
  expect(`${NEWEST_BIN}: ${existsSync(join(NEWEST_BIN, "pulumi")) ? "present" : "missing; run make compat"}`).toBe(`${NEWEST_BIN}: present`);
  const s = await testStack(emu, "policy", { mode: "mandatory" });
  try {
    expect((await run(s, "pulumi", ["version"], `${NEWEST_BIN}:`)).out.trim()).toBe(process.env.COMPAT_PULUMI_VERSION ?? "v3.274.1");
    const g = await gate(s, `${NEWEST_BIN}:`);
    expect(g.out).toContain("[mandatory] cloudplatform-guard/cloudplatform-no-public-buckets on urn:pulumi:");
    expect(g.out).toContain("3 mandatory policy violation(s); pulumi preview exited 1");
    expect(g.code).toBe(5);
  } finally {
    await s.dispose();
  }
});

test("the native SDK's program: the same policies read its type tokens", async () => {
  const s = await testStack(emu, "policy", { mode: "mandatory", sdk: "native" });
  try {
    const g = await gate(s, `${join(ROOT, "bin")}:`);
    expect(g.code).toBe(5);
    for (const policy of ["no-public-buckets", "no-free-tier-in-production", "secret-env-vars"]) {
      expect(g.out).toContain(`[mandatory] cloudplatform-guard/cloudplatform-${policy} on urn:pulumi:`);
    }
    expect(g.out).toMatch(/on urn:pulumi:[^\s]*::cloudplatform:index:Bucket::uploads/);
  } finally {
    await s.dispose();
  }
});

test("advisory violations warn and the preview passes; a clean program passes with none", async () => {
  const s = await testStack(emu, "policy", { mode: "advisory" });
  try {
    const advisory = await preview(s);
    expect(advisory.code).toBe(0);
    expect(advisory.out).toMatch(/\[advisory\] +cloudplatform-web-health-check +\(pulumi-nodejs:dynamic\/cloudplatform:Service: web\)/);
    expect(advisory.out).toContain("Remediation: set the Service's `healthCheckPath`");
    expect(advisory.out).not.toContain("[mandatory]");

    await s.stack.setConfig("mode", { value: "clean" });
    const clean = await gate(s);
    expect(clean).toEqual({ code: 0, out: "" });
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("a Python program through the Automation API: the Node.js pack checks the native Python SDK's resources", async () => {
  const python = join(ROOT, ".venv", "bin", "python");
  expect(`${python}: ${existsSync(python) ? "present" : "missing; run make python-sdk"}`).toBe(`${python}: present`);
  const base = mkdtempSync(join(tmpdir(), "cloudplatform-policy-py-"));
  try {
    for (const d of ["backend", "home", "work"]) mkdirSync(join(base, d), { recursive: true });
    const { stdout } = await promisify(execFile)(python, [join(ROOT, "test", "python", "policy.py")], {
      env: {
        PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`,
        PULUMI_ROOT: join(ROOT, ".tools"),
        // The run's own (scripts/jest), where the pack's ts-node cache goes.
        TMPDIR: tmpdir(),
        PULUMI_HOME: join(base, "home"),
        PULUMI_BACKEND_URL: `file://${join(base, "backend")}`,
        PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        WORK_DIR: join(base, "work"),
        POLICY_PACK: GUARD,
        CLOUDPLATFORM_BASE_URL: emu.baseUrl,
        CLOUDPLATFORM_API_KEY: emu.apiKey,
        CLOUDPLATFORM_WORKSPACE_ID: emu.workspaceId,
      },
      timeout: 540_000,
    });
    expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({
      mandatory: {
        failed: true,
        events: [
          ["mandatory", "cloudplatform-no-free-tier-in-production", "cloudplatform:index:Service", "web", true],
          ["mandatory", "cloudplatform-no-public-buckets", "cloudplatform:index:Bucket", "uploads", true],
        ],
      },
      advisory: { failed: false, events: [["advisory", "cloudplatform-web-health-check", "cloudplatform:index:Service", "web", true]] },
      clean: { failed: false, events: [] },
    });
    expect(await emu.leftovers()).toEqual({});
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
