// The state directory holds keys and secret values in plain text: it is 0700 and every file in it
// 0600 whatever the umask, and a directory left with wider modes is tightened at start, saying so.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type LogEvent } from "../../emulator";
import { StateDir } from "../../emulator/journal";
import { Store } from "../../emulator/store";

let root: string;
let umask: number;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "cp-modes-"));
  // The widest umask: nothing may rely on the user's.
  umask = process.umask(0);
});
afterAll(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;

/** Every entry under dir with its mode, as `path 0NNN`. */
function modes(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel)).flatMap((name) => {
    const p = join(rel, name);
    const line = `${p} 0${mode(join(dir, p)).toString(8)}`;
    return statSync(join(dir, p)).isDirectory() ? [line, ...modes(dir, p)] : [line];
  });
}

test("a new state directory is 0700 and its snapshot, journal, lock and data 0600/0700, whatever the umask", async () => {
  const dir = join(root, "new");
  const emu = await startEmulator({ stateFile: dir });
  try {
    await emu.emu.commit();
    expect(mode(dir)).toBe(0o700);
    const names = readdirSync(dir);
    expect(names).toEqual(expect.arrayContaining(["lock", "data"]));
    expect(names.some((n) => /^journal-\d+\.jsonl$/.test(n))).toBe(true);
    for (const line of modes(dir)) expect(line).toMatch(/ 0(600|700)$/);
  } finally {
    await emu.close();
  }

  // A compaction's snapshot too.
  const store = new Store();
  const state = await StateDir.open(dir, store);
  state.attach(() => ({}), () => undefined);
  store.table<{ id: string; secret: string }>("things").insert({ id: "a", secret: "s3cret" });
  store.flush();
  await state.compact();
  await state.close();
  expect(readdirSync(dir)).toContain("snapshot.jsonl");
  for (const line of modes(dir)) expect(line).toMatch(/ 0(600|700)$/);
});

test("an existing state directory with wider modes is tightened at start, with a log line", async () => {
  const dir = join(root, "old");
  const first = await startEmulator({ stateFile: dir });
  await first.close();
  // As an older emulator or a copy left it: readable by everyone.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "data", "dumps"), { recursive: true });
  chmodSync(join(dir, "data", "dumps"), 0o777);
  writeFileSync(join(dir, "data", "dumps", "backup.sql"), "-- secret rows");
  chmodSync(join(dir, "data", "dumps", "backup.sql"), 0o644);
  for (const f of readdirSync(dir)) if (f.startsWith("journal-")) chmodSync(join(dir, f), 0o666);

  const events: LogEvent[] = [];
  const second = await startEmulator({ stateFile: dir, log: (e) => events.push(e) });
  try {
    expect(mode(dir)).toBe(0o700);
    for (const line of modes(dir)) expect(line).toMatch(/ 0(600|700)$/);
    const said = events.find((e) => e.kind === "state" && /tightened the modes of \d+ entries/.test(e.msg));
    expect(said).toMatchObject({ entries: 4 });
  } finally {
    await second.close();
  }
});
