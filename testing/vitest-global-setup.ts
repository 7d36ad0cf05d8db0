// Vitest `globalSetup`: one emulator per worker, at speed 0; its returned teardown stops them.
import { vitestGlobalSetup } from "./runners";

export default vitestGlobalSetup();
