// The Python SDK's set_cloudplatform_mocks (sdk/overlays/python/testing/mocks.py, built into .venv by
// `make python-sdk`) through its example, test/python/mocks: a unittest file of a program, run as a
// user runs it. The answers come from the plugin's mocks server (`pulumi-resource-cloudplatform
// --mocks`), the code setCloudPlatformMocks uses: a valid program gets the platform's outputs, each
// invalid input fails with check's message.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";

jest.setTimeout(120_000);

const PYTHON = join(ROOT, ".venv", "bin", "python");

async function unittest(env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  expect(`${PYTHON}: ${existsSync(PYTHON) ? "present" : "missing; run make python-sdk"}`).toBe(`${PYTHON}: present`);
  try {
    const { stderr } = await promisify(execFile)(PYTHON, ["-m", "unittest", "-v", "test_shop"], {
      cwd: join(ROOT, "test", "python", "mocks"),
      // The plugin on PATH, as the npm package's bin puts it; no Pulumi CLI, no API.
      env: { PATH: `${join(ROOT, "bin")}:${process.env.PATH}`, HOME: process.env.HOME ?? "/tmp", ...env },
      timeout: 100_000,
    });
    return { code: 0, out: stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

test("python -m unittest: a valid program passes with the platform's outputs, 10 invalid inputs fail with check's message", async () => {
  const r = await unittest();
  expect(r.out).toMatch(/Ran 4 tests/);
  for (const t of ["test_outputs_as_the_platform_fills_them", "test_a_secret_input_stays_secret", "test_a_function_with_no_declared_answer_fails", "test_each_fails_with_checks_message"]) {
    expect(r.out).toMatch(new RegExp(`${t} .*\\.\\.\\. ok`));
  }
  expect(r.code).toBe(0);
});

test("with no plugin to run, set_cloudplatform_mocks fails saying how to provide it", async () => {
  const r = await unittest({ PATH: "/usr/bin:/bin", PULUMI_HOME: "/nonexistent" });
  expect(r.code).toBe(1);
  expect(r.out).toContain("pulumi-resource-cloudplatform was not found: put the pulumi-cloudplatform npm package's bin on PATH, set CLOUDPLATFORM_PLUGIN");
});
