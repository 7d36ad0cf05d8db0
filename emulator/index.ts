// Starts the platform emulator in-process: used by the CLI, the tests, the demo and the benches.
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app";
import { seed, type SeedResult } from "./auth";
import { Emu, type EmuSettings } from "./emu";
import { DEFAULT_REGION } from "./models/catalogue";
import { TEST_MAIL_DOMAIN } from "./models/emails";
import { startDnsServer } from "./dns-server";
import { closeAllDatabases } from "./postgres";
import { StateDir } from "./journal";
import { Store } from "./store";
import { seedStorageKeys } from "./models/storage";

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /**
   * Keep the state in this directory across restarts (made if missing): the rows users made,
   * keys, delegations, external DNS records, the propagation delay and the clock offset. A legacy
   * JSON state file at this path is converted into a directory (the file is kept beside it as
   * `<path>.v1.json`).
   */
  stateFile?: string;
  /** How long close() lets requests under way finish before it cuts their connections (default 10 s). */
  shutdownGraceMs?: number;
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
  /** Storage access keys with their secrets (object API: `Authorization: Bearer <accessKeyId>:<secret>`). */
  storageKeys: { workspaceId: string; name: string; accessKeyId: string; secret: string }[];
  /** Sandbox keys send from and to any address at this domain (conventions §4.3). */
  testMailDomain: string;
  emu: Emu;
  app: FastifyInstance;
  /** Stops accepting, lets requests under way finish, closes the databases, then writes and closes the state. */
  close(): Promise<void>;
  /** For a process that must exit at once: writes what the state has not yet written, and releases it. */
  closeNow(): void;
}

/** What `--state` keeps besides the rows. */
interface KeptSettings {
  delegations?: string[];
  dnsPropagationMs?: number;
  clockOffsetMs?: number;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const store = new Store();
  let emu: Emu | undefined;
  const state = opts.stateFile
    ? await StateDir.open(opts.stateFile, store, { log: (msg, fields) => emu?.log({ kind: "state", msg, ...fields }) })
    : undefined;
  const kept = (state?.meta ?? {}) as KeptSettings;
  const given = opts.settings ?? {};
  // Flags add to what the state kept: delegations are the union, an explicit delay wins.
  const settings: EmuSettings = {
    defaultRegion: DEFAULT_REGION, dnsPropagationMs: 0, speed: 1, ...given,
    delegations: [...new Set([...(kept.delegations ?? []), ...(given.delegations ?? [])])],
    ...(given.dnsPropagationMs === undefined && kept.dnsPropagationMs !== undefined ? { dnsPropagationMs: kept.dnsPropagationMs } : {}),
    ...(state && given.dataDir === undefined ? { dataDir: state.dataDir } : {}),
  };
  emu = new Emu(store, settings);
  const running = emu;
  if (kept.clockOffsetMs) emu.clock.advance(kept.clockOffsetMs);
  state?.attach(() => ({
    delegations: [...running.settings.delegations],
    dnsPropagationMs: running.settings.dnsPropagationMs,
    clockOffsetMs: running.clock.offset,
  }), (err) => running.log({ kind: "error", msg: "could not write the state", error: String(err) }));
  const seeded = store.table<{ id: string; value: SeedResult }>("seed").get("seed")?.value;
  const ids = seeded ?? seed(store, emu.now(), settings.defaultRegion);
  const storageKeys = seedStorageKeys(store, emu.now())
    .map(({ workspaceId, name, accessKeyId, secret }) => ({ workspaceId, name, accessKeyId, secret }));
  emu.rateLimit.set(opts.rateLimit);
  emu.save();

  const app = buildApp(emu, { logger: opts.logger });
  let dns: Awaited<ReturnType<typeof startDnsServer>> | undefined;
  try {
    await app.listen({ port: opts.port ?? 0, host: opts.host ?? "127.0.0.1" });
    dns = opts.dnsPort === undefined ? undefined : await startDnsServer(emu, opts.dnsPort, opts.host ?? "127.0.0.1");
  } catch (err) {
    await app.close();
    await state?.close();
    throw err;
  }
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const baseUrl = `http://${opts.host ?? "127.0.0.1"}:${port}`;
  emu.settings.baseUrl = baseUrl;
  let closing: Promise<void> | undefined;
  return {
    ...ids,
    baseUrl,
    storageKeys,
    ...(dns ? { dnsAddress: `${opts.host ?? "127.0.0.1"}:${dns.port}` } : {}),
    testMailDomain: TEST_MAIL_DOMAIN,
    emu,
    app,
    close: () => (closing ??= (async () => {
      // New connections are refused at once; requests under way finish (bounded), then what they use closes.
      running.stopping = true;
      const grace = setTimeout(() => app.server.closeAllConnections(), opts.shutdownGraceMs ?? 10_000);
      try {
        await Promise.all([app.close(), dns?.close()]);
      } finally {
        clearTimeout(grace);
      }
      running.emit("close", undefined);
      await closeAllDatabases(running);
      await state?.close();
    })()),
    closeNow: () => state?.closeNow(),
  };
}

export { Emu } from "./emu";
export type { FaultRule } from "./faults";
