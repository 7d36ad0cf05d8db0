// The files of a state directory (journal.ts): their formats, reading and replaying them, and
// writing a snapshot. JSON throughout, one record per line; Buffers in rows are kept as base64.
import { closeSync, existsSync, fsync, fsyncSync, openSync, readdirSync, readFileSync, readSync, writeSync } from "node:fs";
import { FILE_MODE } from "./state-modes";
import { join } from "node:path";
import { type Op, type Row, Store } from "./store";

const FORMAT = "cloudplatform-emulator-state";
const VERSION = 2;
export const SNAPSHOT = "snapshot.jsonl";
export const JOURNAL_FILE = /^journal-(\d+)\.jsonl$/;
export const journalName = (gen: number) => `journal-${gen}.jsonl`;
export const journalHeader = (gen: number) => Buffer.from(`${JSON.stringify({ format: `${FORMAT}-journal`, version: VERSION, generation: gen })}\n`);

/** A state that cannot be read or written, naming the file and, where it can, the line and byte. */
export class StateError extends Error {}

export function encode(value: unknown): string {
  return JSON.stringify(withBytes(value));
}

/** The value with each Uint8Array replaced (a Buffer's own toJSON would list every byte); itself when it holds none. */
function withBytes(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Uint8Array) return { $buffer: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64") };
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      const y = x !== null && typeof x === "object" ? withBytes(x) : x;
      if (y !== x) (out ??= v.slice())[i] = y;
    }
    return out ?? v;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  let out: Record<string, unknown> | undefined;
  for (const key in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[key];
    const y = x !== null && typeof x === "object" ? withBytes(x) : x;
    if (y !== x) (out ??= { ...(v as Record<string, unknown>) })[key] = y;
  }
  return out ?? v;
}

function decode(text: string): unknown {
  if (!text.includes('"$buffer"')) return JSON.parse(text);
  return JSON.parse(text, (_k, v) =>
    v !== null && typeof v === "object" && typeof v.$buffer === "string" && Object.keys(v).length === 1 ? Buffer.from(v.$buffer, "base64") : v);
}

/** Writes all of it; returns the bytes written. A string goes to the file without a Buffer copy unless the write comes back short. */
export function writeAll(fd: number, data: Buffer | string): number {
  let bytes: Buffer;
  if (typeof data === "string") {
    const length = Buffer.byteLength(data);
    const done = writeSync(fd, data);
    if (done === length) return length;
    bytes = Buffer.from(data).subarray(done);
  } else bytes = data;
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
  return Buffer.byteLength(data);
}

export function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const snapshotHeader = (gen: number, meta: Record<string, unknown>) =>
  `${JSON.stringify({ format: FORMAT, version: VERSION, generation: gen, meta })}\n`;

/** Writes the rows about a megabyte at a time, yielding to requests between steps; undefined when stopped. */
export async function writeSnapshot(file: string, gen: number, meta: Record<string, unknown>, rows: Iterator<[string, Row]>, stop: () => boolean): Promise<number | undefined> {
  const fd = openSync(file, "w", FILE_MODE);
  try {
    let bytes = 0;
    let chunk: string[] = [snapshotHeader(gen, meta)];
    let size = 0;
    const put = () => {
      const b = Buffer.from(chunk.join(""));
      writeAll(fd, b);
      bytes += b.length;
      chunk = [];
      size = 0;
    };
    for (let next = rows.next(); !next.done; next = rows.next()) {
      const line = `${encode(next.value)}\n`;
      chunk.push(line);
      size += line.length;
      if (size >= 1 << 20) {
        put();
        await new Promise((r) => setImmediate(r));
        if (stop()) return undefined;
      }
    }
    put();
    await new Promise<void>((done, fail) => fsync(fd, (err) => (err ? fail(err) : done())));
    return bytes;
  } finally {
    closeSync(fd);
  }
}

interface Line {
  text: string;
  /** 1-based */
  no: number;
  /** Byte offsets of the line's start and of the byte after its newline. */
  offset: number;
  end: number;
  /** Ends with a newline. */
  whole: boolean;
}

/** The file's lines, read in chunks (a state may be larger than the longest string). */
function* lines(file: string): Generator<Line> {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(4 << 20);
    let parts: Buffer[] = [];
    let offset = 0;
    let no = 0;
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      let start = 0;
      for (let nl = buf.indexOf(10, 0); nl >= 0 && nl < n; nl = buf.indexOf(10, start)) {
        const bytes = parts.length ? Buffer.concat([...parts, buf.subarray(start, nl)]) : buf.subarray(start, nl);
        parts = [];
        yield { text: bytes.toString("utf8"), no: ++no, offset, end: offset + bytes.length + 1, whole: true };
        offset += bytes.length + 1;
        start = nl + 1;
      }
      if (start < n) parts.push(Buffer.from(buf.subarray(start, n)));
    }
    if (parts.length) {
      const bytes = Buffer.concat(parts);
      yield { text: bytes.toString("utf8"), no: ++no, offset, end: offset + bytes.length, whole: false };
    }
  } finally {
    closeSync(fd);
  }
}

const where = (file: string, l: Line) => `${file}, line ${l.no} (byte ${l.offset})`;

/** Parses a line; the error says where, never what the line holds (rows hold keys and secrets). */
function parseLine(file: string, l: Line): unknown {
  try {
    return decode(l.text);
  } catch {
    throw new StateError(`state ${where(file, l)}: not valid JSON (column ${syntaxErrorAt(l.text) + 1})`);
  }
}

function readSnapshot(file: string, store: Store): { generation: number; meta: Record<string, unknown>; bytes: number } {
  let header: { generation: number; meta: Record<string, unknown> } | undefined;
  let bytes = 0;
  for (const l of lines(file)) {
    if (!l.whole) throw new StateError(`state ${where(file, l)}: the snapshot is cut short`);
    const v = parseLine(file, l);
    bytes = l.end;
    if (!header) {
      header = checkHeader(file, l, v, FORMAT);
      continue;
    }
    if (!Array.isArray(v) || typeof v[0] !== "string" || !isRow(v[1])) throw new StateError(`state ${where(file, l)}: expected [table, row]`);
    store.apply(["put", v[0], v[1]]);
  }
  if (!header) throw new StateError(`state ${file}: the snapshot is empty`);
  return { ...header, bytes };
}

function replayJournal(file: string, gen: number, store: Store, last: boolean) {
  let goodBytes = 0;
  let meta: Record<string, unknown> | undefined;
  let torn: Line | undefined;
  for (const l of lines(file)) {
    if (!l.whole) {
      if (!last) throw new StateError(`state ${where(file, l)}: the journal is cut short`);
      torn = l;
      break;
    }
    const v = parseLine(file, l) as { ops?: unknown };
    if (l.no === 1) {
      if (checkHeader(file, l, v, `${FORMAT}-journal`).generation !== gen) throw new StateError(`state ${where(file, l)}: the header names another generation`);
    } else {
      if (!v || !Array.isArray(v.ops)) throw new StateError(`state ${where(file, l)}: expected a batch of changes`);
      for (const op of v.ops) {
        if (!isOp(op)) throw new StateError(`state ${where(file, l)}: a change of unknown shape`);
        store.apply(op);
        if (op[0] === "meta") meta = op[1];
      }
    }
    goodBytes = l.end;
  }
  return { goodBytes, meta, torn };
}

function checkHeader(file: string, l: Line, v: unknown, format: string): { generation: number; meta: Record<string, unknown> } {
  const h = v as { format?: unknown; version?: unknown; generation?: unknown; meta?: unknown };
  if (!h || h.format !== format) throw new StateError(`state ${where(file, l)}: not a ${format} file`);
  if (h.version !== VERSION) throw new StateError(`state ${where(file, l)}: format version ${String(h.version)}; this emulator reads version ${VERSION}`);
  if (typeof h.generation !== "number") throw new StateError(`state ${where(file, l)}: the header has no generation`);
  return { generation: h.generation, meta: (h.meta as Record<string, unknown>) ?? {} };
}

const isRow = (v: unknown): v is Row => v !== null && typeof v === "object" && typeof (v as Row).id === "string";

function isOp(v: unknown): v is Op {
  if (!Array.isArray(v)) return false;
  switch (v[0]) {
    case "put": return typeof v[1] === "string" && isRow(v[2]);
    case "patch": return typeof v[1] === "string" && typeof v[2] === "string" && v[3] !== null && typeof v[3] === "object" && Array.isArray(v[4]);
    case "del": return typeof v[1] === "string" && typeof v[2] === "string";
    case "clear": return Array.isArray(v[1]);
    case "meta": return v[1] !== null && typeof v[1] === "object";
    default: return false;
  }
}

/** A state file from before the state directory: `{table: rows[]}` in one JSON document. */
export function readLegacy(file: string): Record<string, Row[]> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new StateError(`cannot read the state file ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const at = syntaxErrorAt(text);
    const before = text.slice(0, at).split("\n");
    throw new StateError(`state file ${file}: not valid JSON at line ${before.length}, column ${before.at(-1)!.length + 1} (byte ${Buffer.byteLength(text.slice(0, at))})`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new StateError(`state file ${file}: expected an object of tables`);
  for (const [name, rows] of Object.entries(data)) {
    if (!Array.isArray(rows) || !rows.every(isRow)) throw new StateError(`state file ${file}: table '${name}' is not a list of rows with ids`);
  }
  return data as Record<string, Row[]>;
}

/** Where a JSON text stops being valid (JSON.parse's own message may quote the text, which holds secrets). */
export function syntaxErrorAt(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i++] !== ":") (i--, fail());
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === "t") return void literal("true");
    if (c === "f") return void literal("false");
    if (c === "n") return void literal("null");
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += m![0].length;
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] < " ") fail();
      if (text[i] === "\\") {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail();
          i += 6;
        } else if ('"\\/bfnrt'.includes(e) && e !== undefined) i += 2;
        else (i++, fail());
      } else i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  try {
    value();
    ws();
    return i < text.length ? i : text.length;
  } catch (at) {
    if (typeof at === "number") return at;
    throw at;
  }
}

/** Replays a state directory into `store`: the snapshot, then its journal and every later one. */
export function replayDir(dir: string, store: Store) {
  let meta: Record<string, unknown> = {};
  let base = 0;
  let snapshotBytes = 0;
  if (existsSync(join(dir, SNAPSHOT))) {
    const snap = readSnapshot(join(dir, SNAPSHOT), store);
    base = snap.generation;
    meta = snap.meta;
    snapshotBytes = snap.bytes;
  }
  const gens = readdirSync(dir).map((f) => JOURNAL_FILE.exec(f)).filter((m) => m !== null).map((m) => Number(m[1])).sort((a, b) => a - b);
  const live = gens.filter((g) => g >= base);
  let lastBytes = 0;
  let torn: { file: string; line: number; byte: number } | undefined;
  for (const [i, gen] of live.entries()) {
    const file = join(dir, journalName(gen));
    const read = replayJournal(file, gen, store, i === live.length - 1);
    meta = read.meta ?? meta;
    lastBytes = read.goodBytes;
    if (read.torn) torn = { file, line: read.torn.no, byte: read.torn.offset };
  }
  return { meta, base, snapshotBytes, stale: gens.filter((g) => g < base), lastGen: live.at(-1), lastBytes, torn };
}

/** Reads a state directory without opening it (tests, tools): its rows and settings. */
export function readState(dir: string): { tables: Record<string, Row[]>; meta: Record<string, unknown> } {
  const store = new Store();
  const { meta } = replayDir(dir, store);
  return { tables: store.toJSON(), meta };
}
