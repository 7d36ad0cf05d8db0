// Starts the platform emulator in-process: used by the CLI, the tests, the demo and the benches.
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app";
import { seed, type SeedResult } from "./auth";
import { Emu, type EmuSettings } from "./emu";
import { DEFAULT_REGION } from "./models/catalogue";
import { TEST_MAIL_DOMAIN } from "./models/emails";
import { startDnsServer } from "./dns-server";
import { closeAllDatabases } from "./postgres";
import { Store } from "./store";
import { seedStorageKeys } from "./models/storage";

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** Keep state in this JSON file across restarts. */
  stateFile?: string;
  logger?: boolean;
  settings?: Partial<EmuSettings>;
  /** Also serve the simulated public DNS over UDP on this port (0 picks one). */
  dnsPort?: number;
  /** Per-key rate limit: requests per minute, and how many a key may save up. */
  rateLimit?: { perMinute: number; burst?: number };
}

export interface RunningEmulator extends SeedResult {
  baseUrl: string;
  /** `127.0.0.1:PORT` of the DNS server, when one was asked for. */
  dnsAddress?: string;
  /** Storage access keys with their secrets: the credentials of the S3 endpoint in each bucket's `endpoint`. */
  storageKeys: { workspaceId: string; name: string; accessKeyId: string; secret: string }[];
  /** Sandbox keys send from and to any address at this domain (conventions §4.3). */
  testMailDomain: string;
  emu: Emu;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const settings: EmuSettings = { defaultRegion: DEFAULT_REGION, dnsPropagationMs: 0, speed: 1, delegations: [], ...opts.settings };
  const loaded = opts.stateFile ? Store.loadFrom(opts.stateFile) : undefined;
  const emu = new Emu(loaded ?? new Store(), settings);
  const seeded = loaded
    ? emu.store.table<{ id: string; value: SeedResult }>("seed").get("seed")?.value
    : undefined;
  const ids = seeded ?? seed(emu.store, emu.now(), settings.defaultRegion);
  const storageKeys = seedStorageKeys(emu.store, emu.now())
    .map(({ workspaceId, name, accessKeyId, secret }) => ({ workspaceId, name, accessKeyId, secret }));
  emu.persistTo(opts.stateFile);
  emu.rateLimit.set(opts.rateLimit);
  emu.save();

  const app = buildApp(emu, { logger: opts.logger });
  await app.listen({ port: opts.port ?? 0, host: opts.host ?? "127.0.0.1" });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const baseUrl = `http://${opts.host ?? "127.0.0.1"}:${port}`;
  emu.settings.baseUrl = baseUrl;
  const dns = opts.dnsPort === undefined ? undefined : await startDnsServer(emu, opts.dnsPort, opts.host ?? "127.0.0.1");
  return {
    ...ids,
    baseUrl,
    storageKeys,
    ...(dns ? { dnsAddress: `${opts.host ?? "127.0.0.1"}:${dns.port}` } : {}),
    testMailDomain: TEST_MAIL_DOMAIN,
    emu,
    app,
    close: async () => {
      emu.emit("close", undefined);
      await closeAllDatabases(emu);
      await dns?.close();
      await app.close();
      emu.save();
    },
  };
}

export { Emu } from "./emu";
export type { FaultRule } from "./faults";
