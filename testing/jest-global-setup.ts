// Jest `globalSetup`: one emulator per worker, at speed 0.
import { jestGlobalSetup } from "./runners";

export default jestGlobalSetup();
