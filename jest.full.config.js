// `make test-full`: every test file. `make test` (jest.config.js) and `make test-unit`
// (jest.unit.config.js) are this suite with files left out; test/tiers.test.ts keeps the lists honest.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  // Only `*.test.ts` files are tests: helpers beside them may be named anything (a `spec.ts` was run as a test).
  testMatch: ["**/*.test.ts"],
  // Transpile only (isolatedModules in tsconfig.jest.json): `make typecheck` checks the tests' types once, with tsc.
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.jest.json" }] },
  testTimeout: 60_000,
  // In the checkout, not TMPDIR: scripts/jest gives each run a TMPDIR of its own, removed after it.
  cacheDirectory: "<rootDir>/node_modules/.cache/jest",
  // The slow tier first when there are no timings yet (jest.sequencer.js).
  testSequencer: "<rootDir>/jest.sequencer.js",
  // Three on two cores: part of the time is waiting (emulator clocks, Retry-After, client timeouts;
  // most of the fast tier's), which a third worker fills. Measured: the fast tier 150 s to 100 s,
  // the whole suite 29m35s to 27m41s on a clean clone.
  maxWorkers: 3,
};
