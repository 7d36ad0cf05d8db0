/** The app's own tests: `npx jest -c jest.config.js` with the environment the README gives. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/app"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: { strict: true, esModuleInterop: true, types: ["node", "jest"] } }] },
};
