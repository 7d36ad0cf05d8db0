// Three tiers, each inside the next: `make test-unit` (jest.unit.config.js) holds only tests that
// need Node and the build: a test file that drives the Pulumi CLI, a Postgres server, a browser, the
// Python or Go toolchain or awscli must be left to `make test` (jest.config.js, run on each change),
// which leaves the matrix to `make test-full` (jest.full.config.js, every file, what CI runs) but
// keeps each capability's own lifecycle through the CLI. Needs are read from each file's text.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "..");
type Config = { testPathIgnorePatterns?: string[]; testMatch?: string[] };
const unit = require(join(ROOT, "jest.unit.config.js")) as Required<Config>;
const gate = require(join(ROOT, "jest.config.js")) as Required<Config>;
const full = require(join(ROOT, "jest.full.config.js")) as Config;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return testFiles(full);
    return name.endsWith(".test.ts") ? [full] : [];
  });
}

/** What a file's text says it needs. */
const NEEDS: [string, RegExp][] = [
  // The Automation API as a value (its types, and its language host driven by a test, need no CLI).
  ["the Pulumi CLI", /support\/stack|(?<!import type [^\n]*)"@pulumi\/pulumi\/automation"|LocalWorkspace|TOOLS_BIN|pulumiCmd|\.tools\b/],
  ["a Postgres server", /from "pg"|postgres-cluster|postgres-pglite|CLOUDPLATFORM_EMULATOR_POSTGRES|@electric-sql\/pglite/],
  ["a browser", /playwright|chromium/],
  ["the Python or Go toolchain", /\.venv\b|support\/toolchains|\bmypy\b|"go",\s*\[/],
  ["awscli", /execFile\w*\(\s*"aws"/],
  ["libfaketime (and a run of the fast tier)", /faketime|jest\.unit\.config/],
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

const inGate = (file: string) => !gate.testPathIgnorePatterns.some((p) => file.includes(p));

test("make test keeps each capability's own test through the real CLI; make test-full runs every file", () => {
  const files = testFiles(join(ROOT, "test"));
  const gateOnly = (rel: string) => `${rel}: ${!existsSync(join(ROOT, rel)) ? "missing" : inGate(join(ROOT, rel)) ? "make test" : "make test-full only"}`;
  const core = [
    // every resource family's lifecycle and previews on the dynamic SDK, bad input refused at
    // preview, services and mail domains in depth, the native plugin, Python and Go
    "test/lifecycle/preview-table.test.ts", "test/lifecycle/project-environment.test.ts", "test/lifecycle/service.test.ts",
    "test/lifecycle/mail-domain.test.ts", "test/native/lifecycle.test.ts", "test/lifecycle/quickstart-languages.test.ts",
    // drift over a fleet, crashes, secrets, the generated files, the README's first commands
    "test/drift/workflow.test.ts", "test/lifecycle/crash.test.ts", "test/lifecycle/secrets.test.ts",
    "test/schema.test.ts", "test/docs/readme-commands.test.ts",
    // Postgres, the dashboard in a browser, the testing kit
    "test/emulator/postgres.test.ts", "test/emulator/dashboard.test.ts", "test/testing/kit.test.ts",
  ];
  for (const rel of core) expect(gateOnly(rel)).toBe(`${rel}: make test`);
  expect(full.testPathIgnorePatterns ?? ["/node_modules/"]).toEqual(["/node_modules/"]);
  // The files counted here are the files Jest runs: `*.test.ts`, no helper beside them.
  expect(full.testMatch).toEqual(["**/*.test.ts"]);
  for (const p of gate.testPathIgnorePatterns.filter((x) => x !== "/node_modules/")) {
    expect([p, files.some((f) => f.includes(p))]).toEqual([p, true]);
  }
  // the fast tier is inside the gate
  for (const p of gate.testPathIgnorePatterns) expect(unit.testPathIgnorePatterns).toContain(p);
  const make = readFileSync(join(ROOT, "Makefile"), "utf8");
  expect(make).toMatch(/^test:.*\n\t.*scripts\/jest --ci \$\(JEST_FLAGS\)$/m);
  expect(make).toMatch(/^test-full:.*\n\t.*scripts\/jest --ci -c jest\.full\.config\.js /m);
  // scripts/jest: Jest under node with the flags its workers inherit, and its arguments passed on.
  expect(readFileSync(join(ROOT, "scripts", "jest"), "utf8")).toMatch(/^TMPDIR="\$tmp" node --[^\n]*"\$\(dirname "\$0"\)\/\.\.\/node_modules\/jest\/bin\/jest\.js" "\$@"$/m);
});

test("scripts/jest gives its run a TMPDIR of its own and removes it after, passing Jest's exit status on", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-tiers-"));
  try {
    const parent = join(dir, "tmp");
    const tests = join(dir, "tests");
    mkdirSync(parent);
    mkdirSync(tests);
    // Leaves a file in the temporary directory, as the Pulumi CLI leaves each plugin archive it downloads.
    writeFileSync(join(tests, "leaves.test.js"), `test("t", () => {
      const os = require("os");
      require("fs").writeFileSync(require("path").join(os.tmpdir(), "left-behind"), "x");
      // Others pass through it, as through /tmp (as root, a database server runs as another user), and do not list it.
      expect((require("fs").statSync(os.tmpdir()).mode & 0o777).toString(8)).toBe("711");
      expect(os.tmpdir().startsWith(${JSON.stringify(`${parent}/cloudplatform-tests-`)})).toBe(process.env.OUTCOME === "pass");
    });\n`);
    const run = (outcome: string) => new Promise<number | null>((done) => {
      const config = JSON.stringify({ rootDir: tests, testEnvironment: "node", testMatch: ["**/*.test.js"], transform: {} });
      const child = execFile(join(ROOT, "scripts", "jest"), ["--ci", "--config", config], { env: { ...process.env, TMPDIR: parent, OUTCOME: outcome, JEST_WORKER_ID: "" } });
      child.on("exit", (code) => done(code));
    });
    expect(await run("pass")).toBe(0);
    expect(readdirSync(parent)).toEqual([]);
    expect(await run("fail")).toBe(1);
    expect(readdirSync(parent)).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("CI runs the whole suite by default: .ci/run's target is make test-full, which runs jest.full.config.js", () => {
  const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8");
  expect(ci).toMatch(/target="\$\{CI_TARGET:-test-full\}"[\s\S]*\bmake -j\d+ "\$target" /);
  const make = readFileSync(join(ROOT, "Makefile"), "utf8");
  expect(make).toMatch(/^test-full:.*\n\t[^\n]*scripts\/jest --ci -c jest\.full\.config\.js \$\(JEST_FLAGS\)$/m);
  // what test-full needs is made by its own prerequisites, on a fresh machine too
  const needs = /^test-full:(.*)$/m.exec(make)?.[1].trim().split(/\s+/);
  expect(needs).toEqual(expect.arrayContaining(["build", "typecheck", "tools", "python-sdk", "compat", "vitest", "system-deps"]));
  expect(readFileSync(join(ROOT, "scripts", "system-deps.sh"), "utf8")).toMatch(/need\+=\(faketime\)/);
});
