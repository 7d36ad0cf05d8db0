// examples/app-tests runs its own tests with @pulumi-cloudplatform/emulator/testing's Jest global setup, as
// an app would (`npx jest -c jest.config.js` in its folder), and the same tests on Vitest with the
// kit's Vitest global setup (`npx vitest run`); on each runner, two workers get two emulators.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";
import { runVitest, VITEST, vitestProbeDir } from "./vitest";

jest.setTimeout(900_000);

const run = promisify(execFile);
const JEST = join(ROOT, "node_modules", ".bin", "jest");

interface JestReport { numPassedTests: number; numFailedTests: number; numTotalTests: number; success: boolean; testResults: { message: string }[] }

/** Runs jest with a config in `cwd`; resolves with its JSON report, whether it passed or not. */
async function runJest(cwd: string, args: string[]): Promise<JestReport> {
  const out = join(mkdtempSync(join(tmpdir(), "cloudplatform-jest-")), "report.json");
  try {
    await run(JEST, ["--ci", "--json", `--outputFile=${out}`, ...args], { cwd, timeout: 840_000, env: { ...process.env, JEST_WORKER_ID: "" } }).catch(() => undefined);
    return JSON.parse(readFileSync(out, "utf8")) as JestReport;
  } finally {
    rmSync(join(out, ".."), { recursive: true, force: true });
  }
}

test("examples/app-tests: the app's own tests pass on the kit's global setup", async () => {
  const report = await runJest(join(ROOT, "examples", "app-tests"), ["-c", "jest.config.js"]);
  expect(report.testResults.map((r) => r.message).join("\n").trim()).toBe("");
  expect([report.numPassedTests, report.numFailedTests]).toEqual([4, 0]);
});

test("two workers, two emulators: each test file sees its worker's own, and reset in one leaves the other alone", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-workers-"));
  try {
    const kit = join(ROOT, "dist", "testing");
    writeFileSync(join(dir, "jest.config.js"), `module.exports = ${JSON.stringify({
      rootDir: dir, testEnvironment: "node", testMatch: ["**/*.test.js"],
      globalSetup: join(kit, "jest-global-setup.js"), globalTeardown: join(kit, "jest-global-teardown.js"), setupFiles: [join(kit, "worker-env.js")],
    })};`);
    // Each file makes a bucket, waits until the other has made one too, then checks it sees only its own.
    for (const name of ["a", "b"]) {
      writeFileSync(join(dir, `${name}.test.js`), `
        const { createBucket, api, ENV } = require(${JSON.stringify(join(kit, "index.js"))});
        const fs = require("fs"), path = require("path");
        test("${name}", async () => {
          await createBucket("bucket-${name}");
          fs.writeFileSync(path.join(${JSON.stringify(dir)}, "${name}.url"), process.env[ENV.baseUrl]);
          const other = path.join(${JSON.stringify(dir)}, "${name === "a" ? "b" : "a"}.url");
          for (let i = 0; i < 1200 && !fs.existsSync(other); i++) await new Promise((r) => setTimeout(r, 100));
          expect(fs.readFileSync(other, "utf8")).not.toBe(process.env[ENV.baseUrl]);
          const buckets = await api("GET", "/v1/workspaces/" + process.env[ENV.workspaceId] + "/buckets");
          expect((Array.isArray(buckets) ? buckets : buckets.data).map((b) => b.name)).toEqual(["bucket-${name}"]);
        }, 180000);`);
    }
    const report = await runJest(dir, ["-c", "jest.config.js", "--maxWorkers=2"]);
    expect(report.testResults.map((r) => r.message).join("\n").trim()).toBe("");
    expect([report.numPassedTests, report.numFailedTests]).toEqual([2, 0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("Vitest", () => {
  test("is the version examples/app-tests declares (make vitest)", async () => {
    const declared = JSON.parse(readFileSync(join(ROOT, "examples", "app-tests", "package.json"), "utf8")).devDependencies.vitest;
    expect((await run(VITEST, ["--version"])).stdout).toContain(`vitest/${declared} `);
  });

  test("examples/app-tests: the same tests pass on the kit's Vitest global setup", async () => {
    const { report, stderr } = await runVitest(join(ROOT, "examples", "app-tests"), []);
    expect(report.testResults.map((r) => r.message).join("\n").trim()).toBe("");
    expect([report.numPassedTests, report.numFailedTests]).toEqual([4, 0]);
    expect(stderr).not.toMatch(/globalSetup|Sourcemap/);
  });

  test("installed from the tarball: two workers, two emulators, and no warning from the kit's files", async () => {
    // Under node_modules, as an app installs it, Vitest loads the kit as a dependency, not as source.
    const dir = vitestProbeDir();
    try {
      writeFileSync(join(dir, "vitest.config.mjs"), `export default ${JSON.stringify({ test: {
        include: ["*.test.js"], globals: true,
        globalSetup: ["@pulumi-cloudplatform/emulator/testing/vitest-global-setup"], setupFiles: ["@pulumi-cloudplatform/emulator/testing/worker-env"],
      } })};`);
      for (const name of ["a", "b"]) {
        writeFileSync(join(dir, `${name}.test.js`), `
          const { createBucket, api, ENV, workerEnv } = require("@pulumi-cloudplatform/emulator/testing");
          const fs = require("fs"), path = require("path");
          test("${name}", async () => {
            expect(process.env.VITEST_POOL_ID).toMatch(/^[12]$/);
            expect(process.env[ENV.baseUrl]).toBe(workerEnv()[ENV.baseUrl]);
            await createBucket("bucket-${name}");
            fs.writeFileSync(path.join(__dirname, "${name}.url"), process.env[ENV.baseUrl]);
            const other = path.join(__dirname, "${name === "a" ? "b" : "a"}.url");
            for (let i = 0; i < 1200 && !fs.existsSync(other); i++) await new Promise((r) => setTimeout(r, 100));
            expect(fs.readFileSync(other, "utf8")).not.toBe(process.env[ENV.baseUrl]);
            const buckets = await api("GET", "/v1/workspaces/" + process.env[ENV.workspaceId] + "/buckets");
            expect((Array.isArray(buckets) ? buckets : buckets.data).map((b) => b.name)).toEqual(["bucket-${name}"]);
          }, 180000);`);
      }
      const { report, stderr } = await runVitest(dir, ["--maxWorkers=2"]);
      expect(report.testResults.map((r) => r.message).join("\n").trim()).toBe("");
      expect([report.numPassedTests, report.numFailedTests]).toEqual([2, 0]);
      expect(stderr).not.toMatch(/Sourcemap|pulumi-cloudplatform/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
