// The fast tier (`make test-unit`, jest.unit.config.js) holds only tests that need Node and the
// build: a test file that drives the Pulumi CLI, a Postgres server, a browser, the Python or Go
// toolchain or awscli must be left to `make test`. Needs are read from each file's text.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "..");
const unit = require(join(ROOT, "jest.unit.config.js")) as { testPathIgnorePatterns: string[] };

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return testFiles(full);
    return name.endsWith(".test.ts") ? [full] : [];
  });
}

/** What a file's text says it needs. */
const NEEDS: [string, RegExp][] = [
  ["the Pulumi CLI", /support\/stack|@pulumi\/pulumi\/automation|LocalWorkspace|TOOLS_BIN|pulumiCmd|\.tools\b/],
  ["a Postgres server", /from "pg"|postgres-cluster|postgres-pglite|CLOUDPLATFORM_EMULATOR_POSTGRES|@electric-sql\/pglite/],
  ["a browser", /playwright|chromium/],
  ["the Python or Go toolchain", /\.venv\b|support\/toolchains|\bmypy\b|"go",\s*\[/],
  ["awscli", /execFile\w*\(\s*"aws"/],
];

const inUnit = (file: string) => !unit.testPathIgnorePatterns.some((p) => file.includes(p));

test("the fast tier leaves out every test that needs the CLI, Postgres, a browser, a toolchain or awscli", () => {
  const files = testFiles(join(ROOT, "test")).filter((f) => f !== __filename);
  expect(files.length).toBeGreaterThan(80);
  const misplaced = files.filter(inUnit).flatMap((f) => {
    const text = readFileSync(f, "utf8");
    return NEEDS.filter(([, re]) => re.test(text)).map(([need]) => `${relative(ROOT, f)} needs ${need}`);
  });
  expect(misplaced).toEqual([]);
});

test("every pattern the fast tier leaves out matches a test file, and most files stay in it", () => {
  const files = testFiles(join(ROOT, "test"));
  for (const p of unit.testPathIgnorePatterns.filter((x) => x !== "/node_modules/")) {
    expect([p, files.some((f) => f.includes(p))]).toEqual([p, true]);
  }
  expect(files.filter(inUnit).length).toBeGreaterThan(files.length / 2);
});
