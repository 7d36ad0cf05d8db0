// The state directory holds keys, secret values and database data in plain text: only its owner
// may read it. New files are made 0600 and directories 0700; a directory left with wider modes
// (an older emulator, a copy, a umask) is tightened when the emulator opens it.
import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Removes group and other access under `dir` (itself included); returns how many entries changed and what could not be. */
export function tightenModes(dir: string): { changed: number; failed: string[] } {
  let changed = 0;
  const failed: string[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    // A link is left alone: what it points at is not the state's to change.
    if (st.isSymbolicLink()) return;
    const want = st.isDirectory() ? DIR_MODE : FILE_MODE;
    if ((st.mode & 0o777) !== want) {
      try {
        chmodSync(path, want);
        changed++;
      } catch (err) {
        failed.push(`${path}: ${(err as Error).message}`);
      }
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return { changed, failed };
}
