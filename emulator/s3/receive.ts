// A request's body, read as its operation needs it: an object's or a part's bytes streamed to a
// body file (never held whole in memory), any other body (XML documents) read whole, with a cap.
import type { Readable } from "node:stream";
import { blobsOf } from "../blobs";
import type { Emu } from "../emu";
import { MAX_OBJECT_BYTES, type ReceivedBody } from "../models/objects";
import { s3Error } from "./errors";
import type { Payload, PayloadReader } from "./payload";

/** The largest body read whole: a CompleteMultipartUpload of 10,000 parts, a DeleteObjects of 1,000 keys. */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;
/** aws-chunked framing around an object's bytes: headers, signatures and trailers of its chunks. */
const FRAMING_BYTES = 16 * 1024 * 1024;

const tooLarge = (max: number) =>
  s3Error("EntityTooLarge", `Your proposed upload exceeds the maximum allowed size: request bodies are at most ${max} bytes in the emulator`, { MaxSizeAllowed: String(max) });

function checkDeclared(headers: Map<string, string[]>, max: number): void {
  const declared = Number(headers.get("x-amz-decoded-content-length")?.[0] ?? headers.get("content-length")?.[0] ?? 0);
  if (declared > max) throw tooLarge(max);
}

async function* pieces(stream: Readable | undefined, maxRaw: number, max: number): AsyncGenerator<Buffer> {
  if (!stream) return;
  let raw = 0;
  for await (const chunk of stream) {
    raw += (chunk as Buffer).length;
    if (raw > maxRaw) throw tooLarge(max);
    yield chunk as Buffer;
  }
}

/** A body read whole. */
export async function readWhole(stream: Readable | undefined, reader: PayloadReader, headers: Map<string, string[]>): Promise<Payload> {
  checkDeclared(headers, MAX_DOCUMENT_BYTES);
  const parts: Buffer[] = [];
  for await (const chunk of pieces(stream, MAX_DOCUMENT_BYTES + FRAMING_BYTES, MAX_DOCUMENT_BYTES)) {
    parts.push(...reader.push(chunk));
  }
  const body = Buffer.concat(parts);
  if (body.length > MAX_DOCUMENT_BYTES) throw tooLarge(MAX_DOCUMENT_BYTES);
  return { body, ...reader.end() };
}

/** An object's or a part's bytes, streamed to a body file and fsynced; the caller commits or discards it. */
export async function readToFile(emu: Emu, stream: Readable | undefined, reader: PayloadReader, headers: Map<string, string[]>): Promise<{ payload: Payload; received: ReceivedBody }> {
  checkDeclared(headers, MAX_OBJECT_BYTES);
  const pending = await blobsOf(emu).create();
  try {
    for await (const chunk of pieces(stream, MAX_OBJECT_BYTES + FRAMING_BYTES, MAX_OBJECT_BYTES)) {
      for (const data of reader.push(chunk)) {
        if (pending.size + data.length > MAX_OBJECT_BYTES) throw tooLarge(MAX_OBJECT_BYTES);
        await pending.write(data);
      }
    }
    const read = reader.end();
    await pending.finish();
    return { payload: { body: Buffer.alloc(0), ...read }, received: { pending, size: read.size, md5: read.md5 } };
  } catch (err) {
    await pending.discard();
    throw err;
  }
}
