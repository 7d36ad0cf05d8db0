// `make test-unit`: the fast tier. Its tests need Node and the build only: no Pulumi CLI, no
// Postgres server (nor PGlite), no browser, no Python or Go toolchain, no awscli. `make test` runs
// these and the ones below (less what it leaves to `make test-full`). test/tiers.test.ts fails when a
// file that needs one of those lands here.
const gate = require("./jest.config.js");

/** What the fast tier leaves to `make test`, and the need that puts it there. */
const SLOW = {
  "/test/lifecycle/": "the Pulumi CLI (Automation API)",
  "/test/native/": "the Pulumi CLI and the native plugin",
  "/test/packaging/": "the Pulumi CLI and npm pack",
  "/test/schema.test.ts": "the Pulumi CLI, sdkgen and the YAML language host (.tools)",
  "/test/docs/": "the Python venv (mypy) and Go (go vet), the Pulumi CLI, a second Jest run (docs/testing.md's config)",
  "/test/emulator/postgres": "a Postgres server, or PGlite",
  "/test/emulator/dashboard.test.ts": "a browser (chromium)",
  "/test/emulator/s3-cli.test.ts": "awscli",
  "/test/emulator/s3-disk.test.ts": "hundreds of MiB uploaded, restarts and SIGKILLs (the memory and disk bounds)",
  "/test/testing/example.test.ts": "a second Jest run (the policy example's own tests)",
  "/test/emulator/dashboard-sign-in.test.ts": "a browser (chromium)",
  "/test/emulator/gate-browser.test.ts": "a browser (chromium)",
  "/test/drift/": "the Pulumi CLI (stacks checked by cloudplatform-drift)",
  "/test/compat/": "the newest Pulumi CLI, @pulumi/pulumi and Node.js 22 (make compat)",
  "/test/testing/kit.test.ts": "a Postgres server, or PGlite (the pg helper)",
  "/test/testing/app-tests.test.ts": "a Postgres server, or PGlite (the example app)",
  "/test/testing/python-mocks.test.ts": "the Python venv (the Python SDK's mocks)",
  "/test/dates.test.ts": "libfaketime, and this tier itself run again at other dates",
};

/** @type {import('jest').Config} */
module.exports = {
  ...gate,
  testPathIgnorePatterns: [...gate.testPathIgnorePatterns, ...Object.keys(SLOW)],
};
