/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }] },
  testTimeout: 60_000,
  // Lifecycle tests share one Pulumi toolchain; keep the two-core machine from thrashing.
  maxWorkers: 2,
};
