// What every demo section gets: the running emulator, a stack opener wired to it, and printing.
import { join } from "node:path";
import type { RunningEmulator } from "../emulator";
import { CloudPlatformClient } from "../provider/client";
import { openStack, ROOT, type StackHandle } from "./pulumi-env";

export interface DemoKit {
  emu: RunningEmulator;
  /** A client with the emulator's full key, for the "behind Pulumi's back" steps. */
  api: CloudPlatformClient;
  title(text: string): void;
  say(text: string): void;
  /** Opens a stack of examples/<name>, streaming the CLI's output. */
  example(name: string, config?: Record<string, string>): Promise<StackHandle & { print: (s: string) => void }>;
}

export function demoKit(emu: RunningEmulator): DemoKit {
  const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
  return {
    emu,
    api: new CloudPlatformClient({ apiKey: emu.apiKey, baseUrl: emu.baseUrl }),
    title: (text) => process.stdout.write(`\n${bold(`== ${text} ==`)}\n\n`),
    say: (text) => process.stdout.write(`${bold("demo>")} ${text}\n`),
    async example(name, config = {}) {
      const handle = await openStack({
        programDir: join(ROOT, "examples", name),
        stackName: "demo",
        env: { CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey },
        config,
      });
      return Object.assign(handle, { print: (s: string) => process.stdout.write(s) });
    },
  };
}
