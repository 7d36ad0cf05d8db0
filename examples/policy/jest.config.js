/** The program's unit tests, with the provider's own checks and no platform: `npx jest -c jest.config.js`. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: { strict: true, esModuleInterop: true, types: ["node", "jest"] } }] },
};
