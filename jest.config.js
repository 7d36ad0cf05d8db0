// `make test`, the tier to run on each change: the fast tier, and each capability through the real
// Pulumi CLI once (every resource family's lifecycle in one stack on the dynamic SDK, previews
// included; services and mail domains in depth; the native plugin; the Python and Go quickstarts;
// drift over a fleet; crashes; secrets; Postgres; the dashboard; the README's five-minute try).
// The matrix beyond that runs in `make test-full` (jest.full.config.js): the files below, each with
// what it adds. test/tiers.test.ts checks every entry matches a file.
const full = require("./jest.full.config.js");

/** What `make test` leaves to `make test-full`. */
const FULL_ONLY = {
  "/test/docs/example-commands.test.ts": "every example's README and docs/state-in-buckets.md typed as a reader would (10 CPU minutes)",
  "/test/docs/examples.test.ts": "the reference docs' examples compiled in each language (mypy --strict, go vet)",
  "/test/packaging/emulator-security.test.ts": "the emulator's safety defaults again, from the packed package",
  "/test/packaging/install-from-archive.test.ts": "the plugin installed from its release archive, with a YAML program",
  "/test/packaging/packaging.test.ts": "programs on the packed package (npm pack)",
  "/test/packaging/plugin-download.test.ts": "the plugin fetched by the CLI from a download server",
  "/test/packaging/registries.test.ts": "a release published to local npm, PyPI and Go registries, installed by name from the templates (make registries)",
  "/test/compat/": "the newest CLI, @pulumi/pulumi and Node.js 22 (make compat)",
  "/test/drift/lifecycle.test.ts": "drift over TypeScript, Python, Go and YAML stacks",
  "/test/drift/failures.test.ts": "drift runs whose stacks cannot be checked",
  "/test/lifecycle/adopt.test.ts": "whole-workspace adoption through the CLI",
  "/test/lifecycle/advice.test.ts": "the fixes errors suggest, applied through the CLI",
  "/test/lifecycle/connection-loss.test.ts": "a deploy wait that loses the platform",
  "/test/lifecycle/diy-state.test.ts": "the tests' reader of the backend's files held to the CLI's answers (its loss only slows the suite)",
  "/test/lifecycle/durable.test.ts": "lost responses and faults under the CLI",
  "/test/lifecycle/go.test.ts": "the Go SDK beyond the quickstart: drift, components",
  "/test/lifecycle/lean-state.test.ts": "the state's bytes and the API calls per operation, held to budgets",
  "/test/lifecycle/mail-sandbox.test.ts": "the mail-sandbox example and its app's tests",
  "/test/lifecycle/policy.test.ts": "the policy pack on the pinned and the newest CLI",
  "/test/lifecycle/preview-table-native.test.ts": "the preview table on the native plugin, its plans taken by up",
  "/test/lifecycle/bucket.test.ts": "buckets beyond the table: CORS and policy drift, force-destroy with objects",
  "/test/lifecycle/custom-domain.test.ts": "custom domains beyond the table: drift, conflicts named then cleared",
  "/test/lifecycle/static-site.test.ts": "static sites beyond the table: a file changed and deployed in place, a rename repaired",
  "/test/lifecycle/python.test.ts": "the Python SDK beyond the quickstart: drift, components",
  "/test/lifecycle/random-kill.test.ts": "ups killed at random points",
  "/test/lifecycle/state-in-bucket.test.ts": "Pulumi state and locks in a platform bucket",
  "/test/native/components.test.ts": "the native plugin's components",
  "/test/native/import-all.test.ts": "pulumi import of every resource type",
  "/test/native/import-providers.test.ts": "import through explicit providers",
  "/test/native/names.test.ts": "auto-naming through the CLI",
  "/test/native/timeouts-migration.test.ts": "customTimeouts and state from earlier releases",
  "/test/native/typings.test.ts": "nullable outputs typed so in each SDK (tsc and mypy over sample programs)",
  "/test/testing/app-tests.test.ts": "the example app's tests on Jest and Vitest (make vitest)",
  "/test/docs/testing-vitest.test.ts": "docs/testing.md's Vitest config as written (make vitest, make compat)",
  "/test/emulator/s3-disk.test.ts": "hundreds of MiB uploaded, restarts and SIGKILLs",
  "/test/emulator/s3-cli.test.ts": "the S3 endpoint through awscli",
  "/test/emulator/postgres-fallback.test.ts": "PGlite when no Postgres server is installed",
  "/test/dates.test.ts": "the fast tier again at three dates chosen to break calendar code (libfaketime)",
};

/** @type {import('jest').Config} */
module.exports = {
  ...full,
  testPathIgnorePatterns: ["/node_modules/", ...Object.keys(FULL_ONLY)],
};
