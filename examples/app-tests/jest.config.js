/** The app's own tests, on @pulumi-cloudplatform/emulator/testing: one emulator per worker, at speed 0, its keys in the environment. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/app"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: { strict: true, esModuleInterop: true, types: ["node", "jest"] } }] },
  globalSetup: "@pulumi-cloudplatform/emulator/testing/jest-global-setup",
  globalTeardown: "@pulumi-cloudplatform/emulator/testing/jest-global-teardown",
  setupFiles: ["@pulumi-cloudplatform/emulator/testing/worker-env"],
  testTimeout: 30_000,
};
