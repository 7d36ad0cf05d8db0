// The state directory behind `--state PATH`, where the store's rows outlive the process:
//   snapshot.jsonl     the rows at the last compaction: a header line, then one `[table, row]` per line
//   journal-<N>.jsonl  every change since, one batch per line, appended before the replies that
//                      acknowledge it leave (so an answered write survives a SIGKILL)
//   data/              durable data kept with the rows (database clusters and dumps: settings.dataDir)
//   objects/           the bodies of bucket objects and upload parts, one file each (blobs.ts)
//   lock               the process that has the directory open
// A write costs one append whatever the size of the state. Once the journal is twice the snapshot,
// a new snapshot is written in steps between requests while changes go to the next journal; a
// load replays the snapshot, its journal and every later one, so a crash at any step loads. A
// batch cut short by a crash (the last line, without its newline) is ignored and cut off.
// Appends are not fsynced one by one (0.5 ms each here, half the throughput): a killed process
// loses nothing, and a crash of the machine loses at most the last second (syncEveryMs).
import { chmodSync, closeSync, existsSync, fsync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { DIR_MODE, FILE_MODE, tightenModes } from "./state-modes";
import { encode, journalHeader, journalName, JOURNAL_FILE, readLegacy, replayDir, SNAPSHOT, StateError, syncDir, writeAll, writeSnapshot } from "./journal-files";
import type { Op, Row, Sink, Store } from "./store";

export { readState, StateError } from "./journal-files";

export interface StateOptions {
  /** Where state events go (a torn batch cut off, a compaction, a legacy file converted). */
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** Compact once the journal is larger than twice the snapshot and this many bytes (default 8 MiB). */
  compactMinBytes?: number;
  /** Written batches reach the disk (fsync) within this many ms (default 1000). */
  syncEveryMs?: number;
}

export class StateDir implements Sink {
  /** The settings kept with the rows, as loaded. */
  meta: Record<string, unknown> = {};
  readonly dataDir: string;
  private fd = -1;
  private gen = 0;
  private journalBytes = 0;
  private snapshotBytes = 0;
  private unsynced = false;
  private syncTimer?: NodeJS.Timeout;
  private syncing?: Promise<void>;
  private compacting?: Promise<void>;
  private closed = false;
  /** Set when a failed batch could not be cut off the journal: later lines would follow a broken one. */
  private broken?: StateError;

  private constructor(readonly dir: string, private readonly store: Store, private readonly opts: StateOptions) {
    this.dataDir = join(dir, "data");
  }

  /** Opens (or makes) the state at `path` and loads it into `store`; a legacy JSON state file is converted first. */
  static async open(path: string, store: Store, opts: StateOptions = {}): Promise<StateDir> {
    const state = new StateDir(path, store, opts);
    await state.prepare();
    lock(path);
    try {
      state.load();
      mkdirSync(state.dataDir, { recursive: true, mode: DIR_MODE });
    } catch (err) {
      unlock(path);
      throw err;
    }
    return state;
  }

  /** Starts writing the store's changes here; `meta` gives the settings kept beside the rows. */
  attach(meta: () => Record<string, unknown>, onFlushError: (err: unknown) => void): void {
    this.store.attach(this, meta, onFlushError);
    if (this.journalBytes > this.compactAt()) this.compactSoon();
  }

  write(ops: Op[]): void {
    if (this.closed) throw new StateError(`the state ${this.dir} is closed`);
    if (this.broken) throw this.broken;
    let written: number;
    try {
      written = 0;
      for (const line of lines(ops)) written += writeAll(this.fd, line);
    } catch (err) {
      const failed = new StateError(`cannot write the state journal ${join(this.dir, journalName(this.gen))}: ${(err as Error).message}`);
      // A batch written in part would sit in the middle of the journal once the next one lands.
      try {
        ftruncateSync(this.fd, this.journalBytes);
      } catch {
        // Left as the journal's last line, the next load ignores it as a torn tail: write no more.
        this.broken = failed;
      }
      throw failed;
    }
    this.journalBytes += written;
    this.unsynced = true;
    if (!this.syncTimer) {
      this.syncTimer = setTimeout(() => void this.sync(), this.opts.syncEveryMs ?? 1000);
      this.syncTimer.unref();
    }
    if (!this.compacting && this.journalBytes > this.compactAt()) this.compactSoon();
  }

  /**
   * Writes a new snapshot and starts the next journal. Rows are written in steps between
   * requests; changes made meanwhile go to the new journal, which a load replays over it.
   */
  compact(): Promise<void> {
    this.compacting ??= this.writeNextSnapshot().finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  /** Writes what the store has noted, stops a compaction under way, syncs and closes the journal, unlocks. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.store.flush();
    } finally {
      this.store.detach();
      this.closed = true;
      clearTimeout(this.syncTimer);
      await this.compacting?.catch(() => undefined);
      await this.syncing;
      try {
        fsyncSync(this.fd);
      } finally {
        closeSync(this.fd);
        unlock(this.dir);
      }
    }
  }

  /** For a process that must exit now: writes what is noted, syncs, unlocks. */
  closeNow(): void {
    if (this.closed) return;
    try {
      this.store.flush();
      fsyncSync(this.fd);
    } finally {
      this.closed = true;
      this.store.detach();
      unlock(this.dir);
    }
  }

  private log(msg: string, fields: Record<string, unknown> = {}): void {
    this.opts.log?.(msg, { state: this.dir, ...fields });
  }

  /** Makes the directory; a legacy state file (one JSON document) is converted into one. */
  private async prepare(): Promise<void> {
    const path = this.dir;
    const converting = `${path}.converting`;
    let kind: "dir" | "file" | "none";
    try {
      kind = statSync(path).isDirectory() ? "dir" : "file";
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new StateError(`cannot read the state ${path}: ${(err as Error).message}`);
      kind = "none";
    }
    if (kind === "dir") {
      const entries = readdirSync(path);
      const ours = (f: string) => f === SNAPSHOT || f === `${SNAPSHOT}.tmp` || JOURNAL_FILE.test(f) || f === "data" || f === "objects" || f === "lock";
      if (!entries.some((f) => f === SNAPSHOT || JOURNAL_FILE.test(f)) && entries.some((f) => !ours(f))) {
        throw new StateError(`the state ${path} is a directory holding other files, not an emulator state: give a new or empty directory`);
      }
    }
    // A conversion that stopped after moving the legacy file aside: its result is complete.
    if (kind === "none" && existsSync(converting)) renameSync(converting, path);
    else if (kind === "none") mkdirSync(path, { recursive: true, mode: DIR_MODE });
    else if (kind === "file") {
      const tables = readLegacy(path);
      rmSync(converting, { recursive: true, force: true });
      mkdirSync(converting, { mode: DIR_MODE });
      const rows = Object.entries(tables).flatMap(([t, rs]) => rs.map((r) => [t, r] as [string, Row]));
      const bytes = await writeSnapshot(join(converting, SNAPSHOT), 1, {}, rows.values(), () => false);
      syncDir(converting);
      const kept = freeName(`${path}.v1.json`);
      renameSync(path, kept);
      chmodSync(kept, FILE_MODE);
      renameSync(converting, path);
      syncDir(dirname(path));
      this.log("converted a legacy state file into a state directory", { legacyCopy: kept, bytes });
    }
    const { changed, failed } = tightenModes(path);
    if (changed) this.log(`tightened the modes of ${changed} entries of the state directory: it holds keys and secrets, only its owner may read it (directories 0700, files 0600)`, { entries: changed });
    if (failed.length) this.log("could not tighten the modes of some entries of the state directory", { failed: failed.slice(0, 10) });
  }

  private load(): void {
    rmSync(join(this.dir, `${SNAPSHOT}.tmp`), { force: true });
    const read = replayDir(this.dir, this.store);
    for (const gen of read.stale) unlinkSync(join(this.dir, journalName(gen)));
    if (read.torn) this.log("ignored a batch cut short at the end of the journal", read.torn);
    this.meta = read.meta;
    this.snapshotBytes = read.snapshotBytes;
    this.openJournal(read.lastGen ?? Math.max(read.base, 1), read.lastGen === undefined ? 0 : read.lastBytes);
  }

  /** Twice the snapshot: a compaction rewrites half a byte per byte journalled, and a load replays at most twice the state. */
  private compactAt(): number {
    return Math.max(this.opts.compactMinBytes ?? 8 << 20, 2 * this.snapshotBytes);
  }

  private compactSoon(): void {
    setImmediate(() => void this.compact().catch((err) => this.log("compaction failed; the journal keeps growing", { error: String(err) })));
  }

  /** Opens journal `gen` for appending: cut to its last whole batch, or made with its header line. */
  private openJournal(gen: number, keepBytes: number): void {
    const fd = openSync(join(this.dir, journalName(gen)), "a", FILE_MODE);
    ftruncateSync(fd, keepBytes);
    if (keepBytes === 0) {
      const header = journalHeader(gen);
      writeAll(fd, header);
      keepBytes = header.length;
    }
    this.fd = fd;
    this.gen = gen;
    this.journalBytes = keepBytes;
  }

  /** fsync off the main thread; close syncs what is left. */
  private sync(): Promise<void> {
    this.syncTimer = undefined;
    if (!this.unsynced || this.closed) return Promise.resolve();
    this.unsynced = false;
    const fd = this.fd;
    this.syncing = new Promise<void>((done) =>
      fsync(fd, (err) => {
        if (err) this.log("state journal fsync failed", { error: err.message });
        done();
      }),
    ).finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private async writeNextSnapshot(): Promise<void> {
    this.store.flush();
    await this.syncing;
    fsyncSync(this.fd);
    closeSync(this.fd);
    const gen = this.gen + 1;
    this.openJournal(gen, 0);
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    const started = Date.now();
    const bytes = await writeSnapshot(tmp, gen, this.store.metaNow() ?? {}, this.store.entries(), () => this.closed);
    if (bytes === undefined) {
      rmSync(tmp, { force: true });
      return;
    }
    renameSync(tmp, join(this.dir, SNAPSHOT));
    syncDir(this.dir);
    for (const f of readdirSync(this.dir)) {
      const m = JOURNAL_FILE.exec(f);
      if (m && Number(m[1]) < gen) unlinkSync(join(this.dir, f));
    }
    this.snapshotBytes = bytes;
    this.log("compacted the state", { generation: gen, bytes, ms: Date.now() - started });
  }
}

function freeName(path: string): string {
  for (let i = 1; ; i++) {
    const name = i === 1 ? path : path.replace(/\.json$/, `.${i}.json`);
    if (!existsSync(name)) return name;
  }
}

// ---- the lock: one process per state directory ----

/** The lock names the process and its start time, so a pid reused after a crash is not taken for the owner. */
function lock(dir: string): void {
  const file = join(dir, "lock");
  const me = `${process.pid} ${startTime(process.pid) ?? ""}`.trim();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", FILE_MODE);
      writeAll(fd, Buffer.from(`${me}\n`));
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new StateError(`cannot lock the state ${dir}: ${(err as Error).message}`);
    }
    const [pid, started] = readFileSync(file, "utf8").trim().split(" ");
    if (held(Number(pid), started)) {
      const who = Number(pid) === process.pid ? "this process (close the other emulator first)" : `process ${pid}`;
      throw new StateError(`the state ${dir} is in use by ${who}; if no emulator is running, delete ${file}`);
    }
    unlinkSync(file);
  }
  throw new StateError(`cannot lock the state ${dir}: another process keeps taking the lock`);
}

function unlock(dir: string): void {
  rmSync(join(dir, "lock"), { force: true });
}

function held(pid: number, started: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid !== process.pid) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
    }
  }
  const now = startTime(pid);
  return started === undefined || now === undefined || now === started;
}

/** The process's start time in clock ticks since boot (Linux); undefined elsewhere. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/**
 * A batch as one journal line; a batch too long for one string (several large objects written in
 * the same turn) as one line per op.
 */
function lines(ops: Op[]): string[] {
  try {
    return [`${encode({ ops })}\n`];
  } catch (err) {
    if (!(err instanceof RangeError) || ops.length === 1) throw err;
    return ops.map((op) => `${encode({ ops: [op] })}\n`);
  }
}
