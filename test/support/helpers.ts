// Small helpers several test files share.
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Agent, type Dispatcher } from "undici";

/** The error a call fails with; the test fails if the call succeeds. */
export async function failure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

/** A transport that remembers every attempt it carries: method, path, query and headers. */
export class RecordingAgent extends Agent {
  private static open: RecordingAgent[] = [];
  readonly attempts: { method: string; path: string; url: URL; headers: Record<string, string> }[] = [];

  constructor() {
    super();
    RecordingAgent.open.push(this);
  }

  get urls(): URL[] {
    return this.attempts.map((a) => a.url);
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries((opts.headers ?? {}) as Record<string, string>)) headers[k.toLowerCase()] = String(v);
    this.attempts.push({ method: opts.method, path: opts.path, url: new URL(opts.path, "http://x"), headers });
    return super.dispatch(opts, handler);
  }

  /** Closes every recorder a test file made (call from afterAll). */
  static async closeAll(): Promise<void> {
    await Promise.all(RecordingAgent.open.splice(0).map((a) => a.close()));
  }
}

/** A diff without its per-property detail (the native plugin's display), for comparing replace lists. */
export function plainDiff<T extends { detailedDiff?: unknown }>(d: T): Omit<T, "detailedDiff"> {
  const { detailedDiff: _detail, ...rest } = d;
  return rest;
}

/**
 * Polls `check` until it returns true (or a value other than false/undefined), and resolves with
 * that value; fails naming `what` after `timeoutMs`. Tests wait for work this way, never by a fixed sleep.
 */
export async function waitFor<T>(
  check: () => T | false | undefined | Promise<T | false | undefined>,
  { timeoutMs = 10_000, intervalMs = 20, what = "the condition" }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await check();
    if (got !== false && got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * The file system's now, as it stamps a file written in `dir`: a file's age is measured against it,
 * not against the process's clock, which may be elsewhere (libfaketime moves a process's clock, not
 * the kernel's file times: test/dates.test.ts).
 */
export function fileClockNow(dir: string): number {
  const probe = `${dir}.now-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(probe, "");
  try {
    return statSync(probe).mtimeMs;
  } finally {
    rmSync(probe, { force: true });
  }
}

/**
 * The environment for an external program with timers of its own (dig): at a fake date
 * (test/dates.test.ts), libfaketime's clock makes its waits on absolute times hang, so it runs on
 * the real clock. It only asks the emulator, whose clock is the suite's.
 */
export function realClockEnv(): NodeJS.ProcessEnv {
  const { LD_PRELOAD: _preload, FAKETIME: _faketime, ...env } = process.env;
  return env;
}

/**
 * Runs `fn` holding `lock`, a folder made atomically, so that Jest workers take turns; a lock older
 * than `staleMs` (by the file system's clock) is a dead worker's and is taken over.
 */
export async function exclusive<T>(lock: string, fn: () => Promise<T>, { staleMs }: { staleMs: number }): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && fileClockNow(lock) - since > staleMs) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The pages of the list at `path` a spied `client.get` asked for, in order: a walk's first page by its limit, each next one by cursor. */
export function listPages(get: jest.SpiedFunction<(path: string, opts?: any) => Promise<unknown>>, path: string): (number | "next page")[] {
  return get.mock.calls.filter(([p]) => p === path).map(([, o]) => o?.query?.limit ?? "next page");
}
