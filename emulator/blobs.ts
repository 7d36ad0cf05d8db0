// Object bodies as files, not rows: `<state>/objects/<ref>` with `--state`, a temporary directory
// (removed on close) without. A body is streamed into `tmp/` and fsynced; it takes its name, in
// the same turn of the event loop as the row that refers to it is stored, so a SIGKILL mid-upload
// leaves at most a file no row names, which the next start removes. A file a row stops naming is
// removed once the journal holds that change. Files are 0600, directories 0700.
import { randomUUID } from "node:crypto";
import { chmodSync, closeSync, createReadStream, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import type { Emu } from "./emu";

/** The tables whose rows name a body file in `blob`. */
export const BLOB_TABLES = ["bucketObjects", "bucketUploadParts"];
const TMP = "tmp";

/** A body being written: in `tmp/` until `commit` names it. */
export class PendingBlob {
  size = 0;
  private done = false;

  constructor(private readonly blobs: Blobs, private readonly file: FileHandle, readonly tmpPath: string) {}

  async write(data: Buffer): Promise<void> {
    let at = 0;
    while (at < data.length) at += (await this.file.write(data, at, data.length - at)).bytesWritten;
    this.size += data.length;
  }

  /** Everything written reaches the disk (before the reply that acknowledges it). */
  async finish(): Promise<void> {
    await this.file.sync();
    await this.file.close();
  }

  /** Gives the body its name; call in the same turn as the row naming it is stored. */
  commit(): string {
    const ref = randomUUID();
    renameSync(this.tmpPath, this.blobs.path(ref));
    this.done = true;
    this.blobs.syncDirSoon();
    return ref;
  }

  /** Removes the body unless it was committed (any failure on the way). */
  async discard(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.file.close().catch(() => undefined);
    rmSync(this.tmpPath, { force: true });
  }
}

export class Blobs {
  private pending = new Set<string>();
  private scheduled = false;
  private dirSyncing = false;

  private constructor(readonly dir: string, private readonly temporary: boolean) {}

  /** The body files of a state directory, or of a temporary one when `dir` is undefined. */
  static open(dir?: string): Blobs {
    const root = dir ?? mkdtempSync(join(tmpdir(), "cloudplatform-objects-"));
    mkdirSync(root, { recursive: true, mode: 0o700 });
    chmodSync(root, 0o700);
    // Bodies of uploads a crash cut short.
    rmSync(join(root, TMP), { recursive: true, force: true });
    mkdirSync(join(root, TMP), { mode: 0o700 });
    const blobs = new Blobs(root, dir === undefined);
    if (dir === undefined) temporaries.add(blobs);
    return blobs;
  }

  path(ref: string): string {
    if (!/^[0-9a-f-]{36}$/.test(ref)) throw new Error(`not a body file name: '${ref}'`);
    return join(this.dir, ref);
  }

  /** A new body, written by streaming into it. */
  async create(): Promise<PendingBlob> {
    const tmp = join(this.dir, TMP, randomUUID());
    return new PendingBlob(this, await open(tmp, "wx", 0o600), tmp);
  }

  /** A body from bytes held already (control routes, small copies). */
  writeSync(data: Buffer): string {
    const ref = randomUUID();
    const tmp = join(this.dir, TMP, ref);
    const fd = openSync(tmp, "wx", 0o600);
    try {
      for (let at = 0; at < data.length;) at += writeSync(fd, data, at, data.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path(ref));
    this.syncDirSoon();
    return ref;
  }

  /** The new names reach the disk soon after (as the journal's rows naming them do: journal.ts syncs within a second). */
  syncDirSoon(): void {
    if (this.dirSyncing) return;
    this.dirSyncing = true;
    setImmediate(() => {
      this.dirSyncing = false;
      open(this.dir, "r").then((fh) => fh.sync().finally(() => fh.close())).catch(() => undefined);
    });
  }

  /**
   * Bytes `start`..`end` (inclusive) of a body. The file is opened now, so a body replaced or
   * deleted while it streams is still read whole.
   */
  read(ref: string, start?: number, end?: number): Readable {
    const fd = openSync(this.path(ref), "r");
    return createReadStream("", { fd, start, end, highWaterMark: 256 * 1024 });
  }

  /** Removes bodies no row names any more, once the journal holds the change (so a crash never loses a named body). */
  release(emu: Emu, ...refs: (string | undefined)[]): void {
    for (const ref of refs) if (ref) this.pending.add(ref);
    if (this.scheduled || this.pending.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      try {
        emu.store.flush();
      } catch {
        return; // kept: the next start removes what no row names
      }
      for (const ref of this.pending) rmSync(this.path(ref), { force: true });
      this.pending.clear();
    });
  }

  /** Removes every file no row names: bodies of a crashed upload, or left by a reset. */
  sweep(emu: Emu): number {
    const live = new Set<string>();
    for (const table of BLOB_TABLES) for (const row of emu.store.table<{ id: string; blob?: string }>(table).all()) if (row.blob) live.add(row.blob);
    let removed = 0;
    for (const f of readdirSync(this.dir)) {
      if (f === TMP || live.has(f)) continue;
      try {
        unlinkSync(join(this.dir, f));
        removed += 1;
      } catch {
        // already gone
      }
    }
    return removed;
  }

  /** After a reset: once the journal holds it, every body goes. */
  sweepSoon(emu: Emu): void {
    setImmediate(() => {
      try {
        emu.store.flush();
      } catch {
        return;
      }
      this.sweep(emu);
    });
  }

  /** The temporary directory goes; a state directory's bodies stay. */
  close(): void {
    if (!this.temporary) return;
    rmSync(this.dir, { recursive: true, force: true });
    temporaries.delete(this);
  }
}

const temporaries = new Set<Blobs>();
process.once("exit", () => {
  for (const b of temporaries) b.close();
});

const opened = new WeakMap<Emu, Blobs>();

/** The emulator's body files (a temporary directory for an emulator built without startEmulator). */
export function blobsOf(emu: Emu): Blobs {
  let b = opened.get(emu);
  if (!b) {
    b = Blobs.open();
    opened.set(emu, b);
    const made = b;
    emu.on("close", () => made.close());
  }
  return b;
}

export function setBlobs(emu: Emu, blobs: Blobs): void {
  opened.set(emu, blobs);
}
