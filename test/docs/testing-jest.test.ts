// docs/testing.md's Jest config as written, in the project it describes: the block as
// jest.config.js, a Pulumi program's tsconfig.json (examples/quickstart's), a test in TypeScript
// that uses the kit, and jest, ts-jest, @types/jest, typescript and the package in node_modules
// (this checkout's). Jest runs it as an app's `npx jest` does: the global setup starts the
// worker's emulator. Without a TypeScript transform the test would not even parse.
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";
import { configBlock, KIT_TEST } from "./testing-configs";

jest.setTimeout(300_000);

interface JestReport { numPassedTests: number; numFailedTests: number; testResults: { message: string }[] }

test("docs/testing.md: the Jest config runs a TypeScript test against the worker's emulator", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-docs-jest-"));
  try {
    writeFileSync(join(dir, "jest.config.js"), configBlock("testing-jest.test.ts"));
    copyFileSync(join(ROOT, "examples", "quickstart", "tsconfig.json"), join(dir, "tsconfig.json"));
    mkdirSync(join(dir, "test"));
    writeFileSync(join(dir, "test", "buckets.test.ts"), KIT_TEST);
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    const out = join(dir, "report.json");
    // This worker's JEST_WORKER_ID must not reach the app's own run.
    await promisify(execFile)(join(ROOT, "node_modules", ".bin", "jest"), ["--ci", "--json", `--outputFile=${out}`], {
      cwd: dir, timeout: 280_000, env: { ...process.env, JEST_WORKER_ID: "" },
    }).catch(() => undefined);
    const report = JSON.parse(readFileSync(out, "utf8")) as JestReport;
    expect(report.testResults.map((r) => r.message).join("\n").trim()).toBe("");
    expect([report.numPassedTests, report.numFailedTests]).toEqual([1, 0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
