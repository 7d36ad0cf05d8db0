// A setup file (Jest `setupFiles`, Vitest `setupFiles`): points this worker's process.env at the
// worker's own emulator, so tests in different workers never share state.
import { workerEnv } from "./env";

const env = workerEnv();
if (env) Object.assign(process.env, env);
