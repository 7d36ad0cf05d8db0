// The bodies of objects and upload parts, as files (blobs.ts): streamed out for reads, streamed in
// for copies and completed uploads, and moved out of the rows of states written by earlier releases.
import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { BLOB_TABLES, blobsOf, type PendingBlob } from "../blobs";
import type { Emu } from "../emu";

/** A body streamed to a file, not yet named: a row stores it with `commit` (see blobs.ts). */
export interface ReceivedBody {
  pending: PendingBlob;
  size: number;
  /** MD5 hex of the bytes. */
  md5: string;
}

/** Bytes `start`..`end` (inclusive) of an object or part, streamed from its file (opened now). */
export const bodyStream = (emu: Emu, o: { blob: string }, start?: number, end?: number): Readable => blobsOf(emu).read(o.blob, start, end);

/** Streams bytes (a copy's source, parts joined) into a new body file; `check` sees the size so far. */
export async function receive(emu: Emu, sources: Iterable<Readable | (() => Readable)>, check: (size: number) => void): Promise<ReceivedBody> {
  const list = [...sources];
  let pending: PendingBlob;
  try {
    pending = await blobsOf(emu).create();
  } catch (err) {
    for (const s of list) if (typeof s !== "function") s.destroy();
    throw err;
  }
  try {
    const hash = createHash("md5");
    for (const source of list) {
      for await (const chunk of typeof source === "function" ? source() : source) {
        check(pending.size + (chunk as Buffer).length);
        hash.update(chunk as Buffer);
        await pending.write(chunk as Buffer);
      }
    }
    await pending.finish();
    return { pending, size: pending.size, md5: hash.digest("hex") };
  } catch (err) {
    for (const s of list) if (typeof s !== "function") s.destroy();
    await pending.discard();
    throw err;
  }
}

/** Rows of an earlier release held their bodies as base64: each is moved to a file, and the row names it. */
export function moveInlineBodies(emu: Emu): number {
  let moved = 0;
  for (const name of BLOB_TABLES) {
    const table = emu.store.table<{ id: string; blob?: string; body?: string }>(name);
    for (const row of table.where((r) => typeof r.body === "string" && !r.blob)) {
      const blob = blobsOf(emu).writeSync(Buffer.from(row.body!, "base64"));
      table.update(row.id, { blob, body: undefined });
      moved += 1;
    }
  }
  return moved;
}
