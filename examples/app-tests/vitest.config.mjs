// The same tests as jest.config.js, on Vitest (`npx vitest run`): one emulator per worker, at speed 0,
// its keys in the environment. `globals` gives the tests Jest's test/expect/beforeEach unchanged.
/** @type {import("vitest/config").ViteUserConfig} */
export default {
  test: {
    include: ["app/**/*.test.ts"],
    globals: true,
    globalSetup: ["@pulumi-cloudplatform/emulator/testing/vitest-global-setup"],
    setupFiles: ["@pulumi-cloudplatform/emulator/testing/worker-env"],
    testTimeout: 30_000,
  },
};
