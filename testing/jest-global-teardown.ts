// Jest `globalTeardown`: stops the emulators jest-global-setup started.
import { jestGlobalTeardown } from "./runners";

export default jestGlobalTeardown();
