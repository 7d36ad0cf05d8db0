// The lock the docs' shell blocks and the plugin archives' build take across Jest workers: holders
// take turns, a failing holder frees it, and a dead worker's lock (older than staleMs) is taken over.
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exclusive, failure, fileClockNow } from "./helpers";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "cloudplatform-lock-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("holders take turns, and the lock is gone after each, failed or not", async () => {
  const lock = join(dir, "l.lock");
  const log: string[] = [];
  const hold = (name: string, ms: number) => exclusive(lock, async () => {
    log.push(`${name} in`);
    await new Promise((r) => setTimeout(r, ms));
    log.push(`${name} out`);
    return name;
  }, { staleMs: 60_000 });
  expect(await Promise.all([hold("a", 300), hold("b", 10)])).toEqual(["a", "b"]);
  expect(log).toEqual(["a in", "a out", "b in", "b out"]);
  expect(existsSync(lock)).toBe(false);
  expect((await failure(exclusive(lock, async () => { throw new Error("boom"); }, { staleMs: 60_000 }))).message).toBe("boom");
  expect(existsSync(lock)).toBe(false);
});

test("a lock older than staleMs is taken over; a fresh one is waited for", async () => {
  const lock = join(dir, "l.lock");
  mkdirSync(lock);
  // Two minutes old by the file system's clock, whatever the process's clock says.
  const old = (fileClockNow(lock) - 120_000) / 1000;
  utimesSync(lock, old, old);
  expect(await exclusive(lock, async () => "taken", { staleMs: 60_000 })).toBe("taken");
  mkdirSync(lock);
  let done = false;
  const waiting = exclusive(lock, async () => (done = true), { staleMs: 60_000 });
  await new Promise((r) => setTimeout(r, 700));
  expect(done).toBe(false);
  rmSync(lock, { recursive: true });
  await waiting;
  expect(done).toBe(true);
});
