// An emulator per test file, in-process, called through the real client as users would.
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../emulator";
import { CloudPlatformClient, type ClientOptions } from "../../provider/client";
import { makeContext } from "../../provider/config";
import type { Context } from "../../provider/resources/framework";

export interface TestEmulator extends RunningEmulator {
  client(key?: string, opts?: Partial<ClientOptions>): CloudPlatformClient;
  /** The control API, over HTTP. */
  control(method: string, path: string, body?: unknown): Promise<any>;
  /** Row counts of everything users created. */
  leftovers(): Promise<Record<string, number>>;
}

export async function emulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const emu = await startEmulator(opts);
  const clients: CloudPlatformClient[] = [];
  const close = emu.close;
  return Object.assign(emu, {
    client(key = emu.apiKey, extra: Partial<ClientOptions> = {}) {
      const c = new CloudPlatformClient({ apiKey: key, baseUrl: emu.baseUrl, retry: { baseDelayMs: 10, maxDelayMs: 50 }, ...extra });
      clients.push(c);
      return c;
    },
    async control(method: string, path: string, body?: unknown) {
      const res = await fetch(`${emu.baseUrl}/_emulator${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    async leftovers() {
      const res = await fetch(`${emu.baseUrl}/_emulator/state`);
      const { counts } = (await res.json()) as { counts: Record<string, number> };
      return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await close();
    },
  });
}

/**
 * A handler test file's emulator and context, built as the providers build theirs: started once
 * (`use` receives them), reset before each test, closed after the last.
 */
export function handlerSuite(opts: EmulatorOptions, use: (emu: TestEmulator, ctx: Context) => void): void {
  let emu: TestEmulator | undefined;
  let ctx: Context | undefined;
  beforeAll(async () => {
    emu = await emulator(opts);
    ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl });
    use(emu, ctx);
  });
  afterAll(async () => {
    await ctx?.client.close();
    await emu?.close();
  });
  beforeEach(() => emu!.control("POST", "/reset"));
}
