// examples/policy's own unit tests (test/program.test.ts, with setCloudPlatformMocks) pass as a user
// runs them: `npx jest -c jest.config.js` in the example's folder.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";

jest.setTimeout(300_000);

test("examples/policy: the program's Jest tests with the mocks pass", async () => {
  const run = await promisify(execFile)(process.execPath, [join(ROOT, "node_modules", "jest", "bin", "jest.js"), "-c", "jest.config.js", "--ci"], {
    cwd: join(ROOT, "examples", "policy"),
    env: { ...process.env, CI: "true" },
  });
  expect(run.stderr).toMatch(/Tests: +2 passed, 2 total/);
});
