/** The app's own tests, on pulumi-cloudplatform/testing: one emulator per worker, at speed 0, its keys in the environment. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/app"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: { strict: true, esModuleInterop: true, types: ["node", "jest"] } }] },
  globalSetup: "pulumi-cloudplatform/testing/jest-global-setup",
  globalTeardown: "pulumi-cloudplatform/testing/jest-global-teardown",
  setupFiles: ["pulumi-cloudplatform/testing/worker-env"],
  testTimeout: 30_000,
};
