// docs/testing.md's Vitest config as written (vitest.config.ts, importing vitest/config), in a
// project with the package installed from its tarball (`make compat`) and Vitest beside it
// (`make vitest`), as `npm install -D vitest` puts it: a test in TypeScript that uses the kit runs
// against the worker's emulator.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";
import { runVitest, vitestProbeDir } from "../testing/vitest";
import { configBlock, KIT_TEST } from "./testing-configs";

jest.setTimeout(300_000);

test("docs/testing.md: the Vitest config runs a TypeScript test against the worker's emulator", async () => {
  const dir = vitestProbeDir();
  try {
    writeFileSync(join(dir, "vitest.config.ts"), configBlock("testing-vitest.test.ts"));
    mkdirSync(join(dir, "test"));
    writeFileSync(join(dir, "test", "buckets.test.ts"), KIT_TEST);
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(join(ROOT, ".tools", "vitest", "node_modules", "vitest"), join(dir, "node_modules", "vitest"));
    const { report, stderr } = await runVitest(dir, []);
    expect(report.testResults.map((r) => r.message).join("\n").trim()).toBe("");
    expect([report.numPassedTests, report.numFailedTests]).toEqual([1, 0]);
    expect(stderr).not.toMatch(/Sourcemap|pulumi-cloudplatform/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
