// The environment the kit gives each test worker: the variables the provider and the platform's
// clients read, so the app under test and the stack under test both find the worker's emulator.
import type { RunningEmulator } from "../emulator";

/** What each variable holds; the provider reads the first three (provider/config.ts). */
export const ENV = {
  baseUrl: "CLOUDPLATFORM_BASE_URL",
  apiKey: "CLOUDPLATFORM_API_KEY",
  workspaceId: "CLOUDPLATFORM_WORKSPACE_ID",
  /** A sandbox mail key (mail_test_): sends from and to any address at the test mail domain. */
  mailTestKey: "CLOUDPLATFORM_MAIL_TEST_KEY",
  testMailDomain: "CLOUDPLATFORM_TEST_MAIL_DOMAIN",
  /** The S3 endpoint of the workspace's default region, its region and a storage access key. */
  s3Endpoint: "CLOUDPLATFORM_S3_ENDPOINT",
  s3Region: "CLOUDPLATFORM_S3_REGION",
  s3AccessKeyId: "CLOUDPLATFORM_S3_ACCESS_KEY_ID",
  s3SecretAccessKey: "CLOUDPLATFORM_S3_SECRET_ACCESS_KEY",
} as const;

export type EmulatorEnv = Record<(typeof ENV)[keyof typeof ENV], string>;

/** One variable per worker's emulator, as JSON, set by the global setup and read by worker-env. */
export const WORKERS_VAR = "CLOUDPLATFORM_TESTING_EMULATORS";

/** The variables for one running emulator. */
export function emulatorEnv(emu: RunningEmulator): EmulatorEnv {
  const region = emu.emu.settings.defaultRegion;
  const key = emu.storageKeys.find((k) => k.workspaceId === emu.workspaceId);
  if (!key) throw new Error("the emulator seeded no storage access key for its workspace");
  return {
    [ENV.baseUrl]: emu.baseUrl,
    [ENV.apiKey]: emu.apiKey,
    [ENV.workspaceId]: emu.workspaceId,
    [ENV.mailTestKey]: emu.keys.sandbox,
    [ENV.testMailDomain]: emu.testMailDomain,
    [ENV.s3Endpoint]: `${emu.baseUrl}/_storage/${region}`,
    [ENV.s3Region]: region,
    [ENV.s3AccessKeyId]: key.accessKeyId,
    [ENV.s3SecretAccessKey]: key.secret,
  } as EmulatorEnv;
}

/**
 * The 1-based worker number of this test process: Vitest's VITEST_POOL_ID, else Jest's
 * JEST_WORKER_ID, else 1. Vitest's first: only Vitest sets it, while a JEST_WORKER_ID may be
 * inherited from a Jest run that started this one.
 */
export function workerNumber(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.VITEST_POOL_ID || env.JEST_WORKER_ID || "1";
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`the test worker's number is not a positive integer: '${raw}'`);
  return n;
}

/** This worker's emulator variables, from what the global setup published; undefined outside one. */
export function workerEnv(env: NodeJS.ProcessEnv = process.env): EmulatorEnv | undefined {
  const all = env[WORKERS_VAR];
  if (!all) return undefined;
  const list = JSON.parse(all) as EmulatorEnv[];
  const n = workerNumber(env);
  // More workers than emulators (a pool that grew): share them round-robin rather than fail.
  return list[(n - 1) % list.length];
}

/** The value of one of the kit's variables, with an error that says how to get it. */
export function required(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const v = env[name];
  if (!v) {
    throw new Error(
      `${name} is not set: add @pulumi-cloudplatform/emulator/testing's global setup to the test runner's config ` +
      "(Jest: globalSetup, globalTeardown and setupFiles; Vitest: globalSetup and setupFiles), or start one with startTestEmulator()",
    );
  }
  return v;
}
