// @pulumi-cloudplatform/emulator/testing: test an app against the emulator. The global setups (Jest, Vitest)
// start one emulator per worker at speed 0 and put its address and keys in the environment; these
// helpers reach the worker's emulator through that environment. See docs/testing.md.
export { ENV, emulatorEnv, workerEnv, workerNumber, type EmulatorEnv } from "./env";
export { startTestEmulator, startWorkerEmulators, type TestEmulator, type WorkerEmulators } from "./emulators";
export { emulatorCount, jestGlobalSetup, jestGlobalTeardown, vitestGlobalSetup } from "./runners";
export { advanceClock, control, delegate, reset } from "./control";
export { clearOutbox, extractLink, links, outbox, waitForEmail, type OutboxMessage, type WaitForEmailOptions } from "./outbox";
export { api, ApiError, createBucket, type Bucket } from "./api";
export { s3Client, s3Config, type S3Config } from "./s3";
export { connectDatabase, createDatabase, databaseUrl, type Database } from "./pg";
