// Starting and stopping the emulators the global setups hand to the test workers.
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../emulator";
import { emulatorEnv, WORKERS_VAR, type EmulatorEnv } from "./env";

export interface TestEmulator extends RunningEmulator {
  /** The variables that point a process at this emulator (CLOUDPLATFORM_BASE_URL, ...). */
  env: EmulatorEnv;
}

/** One in-process emulator for tests: instant lifecycles (`speed: 0`) unless `speed` says otherwise. */
export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const running = await startEmulator({ speed: 0, ...opts });
  return Object.assign(running, { env: emulatorEnv(running) });
}

export interface WorkerEmulators {
  emulators: TestEmulator[];
  /** Stops them all, and removes the variables the setup set. */
  stop(): Promise<void>;
}

/**
 * Starts `count` emulators, one per test worker, and publishes them in process.env before the
 * workers start: the first one's variables directly (a run in band needs nothing else), all of
 * them in one variable that the worker-env setup file reads to pick its own.
 */
export async function startWorkerEmulators(count: number, opts: EmulatorOptions = {}): Promise<WorkerEmulators> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`count: must be a positive integer, got ${count}`);
  const emulators: TestEmulator[] = [];
  try {
    for (let i = 0; i < count; i++) emulators.push(await startTestEmulator(opts));
  } catch (err) {
    await Promise.allSettled(emulators.map((e) => e.close()));
    throw err;
  }
  const before = { ...process.env };
  Object.assign(process.env, emulators[0].env, { [WORKERS_VAR]: JSON.stringify(emulators.map((e) => e.env)) });
  return {
    emulators,
    async stop() {
      for (const name of [...Object.keys(emulators[0].env), WORKERS_VAR]) {
        if (before[name] === undefined) delete process.env[name];
        else process.env[name] = before[name];
      }
      await Promise.all(emulators.map((e) => e.close()));
    },
  };
}
