// POST /_emulator/reset forgets the backup dumps under the data directory. A backup taken right
// after the reset must keep its dump: the dump lands in <dataDir>/backups/, which the removal of
// the forgotten dumps must never touch, however long that removal takes.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { emulator, type TestEmulator } from "../support/emulator";
import { waitFor } from "../support/helpers";

const dataDir = mkdtempSync(path.join(tmpdir(), "reset-dumps-"));
const dumps = path.join(dataDir, "backups");
let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { dataDir } });
});
afterAll(async () => {
  await emu?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Many old dumps, so that removing them takes a while. */
function oldDumps(n: number): void {
  mkdirSync(dumps, { recursive: true });
  for (let i = 0; i < n; i++) writeFileSync(path.join(dumps, `old-${i}.sql`), "-- forgotten\n");
}

test("a dump written right after a reset survives the removal of the forgotten ones", async () => {
  oldDumps(3_000);
  await emu.control("POST", "/reset");

  // Written at once, as the backup route writes a dump: the folder made if missing, then the file.
  mkdirSync(dumps, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dumps, "new.sql"), "-- taken after the reset\n");

  // The forgotten dumps go; the new one stays.
  const forgotten = () => readdirSync(dataDir).some((n) => n.startsWith("backups.")) || (existsSync(dumps) && readdirSync(dumps).some((n) => n.startsWith("old-")));
  await waitFor(() => !forgotten(), { timeoutMs: 30_000, what: "the forgotten dumps to go" });
  expect(existsSync(dumps) ? readdirSync(dumps) : []).toEqual(["new.sql"]);
});

test("a folder a crash left half removed goes with the next reset", async () => {
  const leftover = path.join(dataDir, "backups.forgotten-crashed");
  mkdirSync(leftover, { recursive: true });
  writeFileSync(path.join(leftover, "x.sql"), "-- forgotten\n");
  await emu.control("POST", "/reset");
  await waitFor(() => !existsSync(leftover), { timeoutMs: 30_000 });
  expect(existsSync(dumps)).toBe(false);
});
