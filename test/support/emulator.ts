// An emulator per test file, in-process, called through the real client as users would.
// CLOUDPLATFORM_STATE_AUDIT=1 runs each one on a state directory and checks, before each reset
// and at close, that what the journal holds is exactly what the emulator holds in memory: a
// change that never reached the journal (a model writing where the store cannot see) fails the test.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../emulator";
import { readState } from "../../emulator/journal";
import { canonicalJson } from "../../provider/client/idempotency";
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
  const auditDir = process.env.CLOUDPLATFORM_STATE_AUDIT === "1" && !opts.state && !opts.stateFile ? mkdtempSync(join(tmpdir(), "cp-audit-")) : undefined;
  const emu = await startEmulator(auditDir ? { ...opts, state: auditDir } : opts);
  const clients: CloudPlatformClient[] = [];
  const close = emu.close;
  const audit = () => {
    if (!auditDir) return;
    emu.emu.save();
    const missed = stateDifferences(emu.emu.store.toJSON(), readState(auditDir).tables);
    if (missed.length) throw new Error(`the state journal differs from memory:\n${missed.slice(0, 20).join("\n")}`);
  };
  return Object.assign(emu, {
    client(key = emu.apiKey, extra: Partial<ClientOptions> = {}) {
      const c = new CloudPlatformClient({ apiKey: key, baseUrl: emu.baseUrl, retry: { baseDelayMs: 10, maxDelayMs: 50 }, ...extra });
      clients.push(c);
      return c;
    },
    async control(method: string, path: string, body?: unknown) {
      if (method === "POST" && path === "/reset") audit();
      const res = await fetch(`${emu.baseUrl}/_emulator${path}`, {
        method,
        // A control request that changes something is JSON, with the token when the emulator has one.
        headers: { ...(method === "GET" ? {} : { "content-type": "application/json" }), ...(opts.controlToken ? { "x-emulator-token": opts.controlToken } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    async leftovers() {
      const res = await fetch(`${emu.baseUrl}/_emulator/state`, { headers: opts.controlToken ? { "x-emulator-token": opts.controlToken } : {} });
      const { counts } = (await res.json()) as { counts: Record<string, number> };
      return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      try {
        audit();
      } finally {
        await close();
        if (auditDir) rmSync(auditDir, { recursive: true, force: true });
      }
    },
  });
}

/** Rows that differ between two states (table, id and how), compared as JSON. */
function stateDifferences(memory: Record<string, { id: string }[]>, disk: Record<string, { id: string }[]>): string[] {
  const out: string[] = [];
  for (const table of new Set([...Object.keys(memory), ...Object.keys(disk)])) {
    const have = new Map((disk[table] ?? []).map((r) => [r.id, canonicalJson(JSON.parse(JSON.stringify(r)))]));
    for (const row of memory[table] ?? []) {
      const want = canonicalJson(JSON.parse(JSON.stringify(row)));
      const got = have.get(row.id);
      if (got === undefined) out.push(`${table} ${row.id}: missing from the journal`);
      else if (got !== want) out.push(`${table} ${row.id}: journal ${got.slice(0, 300)}\n  memory ${want.slice(0, 300)}`);
      have.delete(row.id);
    }
    for (const id of have.keys()) out.push(`${table} ${id}: deleted in memory, still in the journal`);
  }
  return out;
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
