/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  // Transpile only (isolatedModules in tsconfig.jest.json): `make typecheck` checks the tests' types once, with tsc.
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.jest.json" }] },
  testTimeout: 60_000,
  // The slow tier first when there are no timings yet (jest.sequencer.js).
  testSequencer: "<rootDir>/jest.sequencer.js",
  // Lifecycle tests share one Pulumi toolchain; keep the two-core machine from thrashing.
  maxWorkers: 2,
};
