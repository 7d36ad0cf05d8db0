// Global setups for Jest and Vitest: one emulator per test worker, at speed 0, its variables in
// each worker's environment (with the worker-env setup file). Make a setup with options:
//   module.exports = require("@pulumi-cloudplatform/emulator/testing").jestGlobalSetup({ delegate: ["shop.test"] });
import { availableParallelism } from "node:os";
import type { EmulatorOptions } from "../emulator";
import { startWorkerEmulators, type WorkerEmulators } from "./emulators";

const RUNNING = Symbol.for("pulumi-cloudplatform.testing.emulators");
type Holder = { [RUNNING]?: WorkerEmulators };

/** How many emulators: CLOUDPLATFORM_TEST_EMULATORS, else the runner's worker count, else the CPUs. */
export function emulatorCount(maxWorkers?: number, env: NodeJS.ProcessEnv = process.env): number {
  const given = env.CLOUDPLATFORM_TEST_EMULATORS;
  if (given !== undefined && given !== "") {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 1) throw new Error(`CLOUDPLATFORM_TEST_EMULATORS must be a positive integer, got '${given}'`);
    return n;
  }
  return maxWorkers !== undefined && Number.isInteger(maxWorkers) && maxWorkers > 0 ? maxWorkers : availableParallelism();
}

/** A Jest `globalSetup`: starts the emulators; jestGlobalTeardown() stops them. */
export function jestGlobalSetup(opts: EmulatorOptions = {}) {
  return async (globalConfig?: { maxWorkers?: number }): Promise<void> => {
    const holder = globalThis as Holder;
    if (holder[RUNNING]) return;
    holder[RUNNING] = await startWorkerEmulators(emulatorCount(globalConfig?.maxWorkers), opts);
  };
}

/** A Jest `globalTeardown`: stops what jestGlobalSetup started (Jest runs both in one process). */
export function jestGlobalTeardown() {
  return async (): Promise<void> => {
    const holder = globalThis as Holder;
    const running = holder[RUNNING];
    delete holder[RUNNING];
    await running?.stop();
  };
}

/** A Vitest `globalSetup` (its default export): starts the emulators, and returns the teardown that stops them. */
export function vitestGlobalSetup(opts: EmulatorOptions = {}) {
  return async (project?: { config?: { maxWorkers?: number | string } }): Promise<() => Promise<void>> => {
    const max = project?.config?.maxWorkers;
    const running = await startWorkerEmulators(emulatorCount(typeof max === "number" ? max : undefined), opts);
    return () => running.stop();
  };
}
