// The fast tests (unit, client, handlers against the in-process emulator) that `make mutation`
// runs against each mutant of provider/; the lifecycle and packaging tests are too slow for it.
const base = require("./jest.config.js");
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ["<rootDir>/test/provider/**/*.test.ts", "<rootDir>/test/client/**/*.test.ts"],
  maxWorkers: 1,
};
