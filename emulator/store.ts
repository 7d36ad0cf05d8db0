// The emulator's store: named tables of plain JSON rows, in memory. With a state directory
// (`--state`, journal.ts) every change is also written to an append-only journal: what goes
// through a Table (insert, update, delete) and what models write directly on the rows a Table hands
// out, which are then proxies that note the field written, however deep. `flush()` writes the
// changes noted so far as one batch, at the end of each turn of the event loop that made any; a
// reply waits for it with `commit()`, so the replies of one turn share one write.
import { randomUUID } from "node:crypto";
import { copy, RowProxies, same } from "./row-proxies";
import { Index, type IndexSpec } from "./store-index";

export interface Row {
  id: string;
}

/** One change, as the journal stores it. */
export type Op =
  | ["put", string, Row]
  /** table, id, fields set, fields removed */
  | ["patch", string, string, Record<string, unknown>, string[]]
  | ["del", string, string]
  /** Empties every table but these. */
  | ["clear", string[]]
  /** Settings kept beside the rows (delegations, propagation delay, clock offset). */
  | ["meta", Record<string, unknown>];

/** Where flushed batches go (journal.ts). A throw leaves the changes noted, to be written next time. */
export interface Sink {
  write(ops: Op[]): void;
}

export class Table<T extends Row> {
  /** Rows visited by all, where and find since made: what the tests count instead of timing. */
  scanned = 0;
  constructor(
    private readonly rows: Map<string, T>,
    private readonly name: string,
    private readonly store: Store,
  ) {}
  get(id: string): T | undefined {
    const row = this.rows.get(id);
    return row && this.store.out(this.name, row);
  }
  has(id: string): boolean {
    return this.rows.has(id);
  }
  /** Inserts, or replaces the row with the same id. */
  insert(row: T): T {
    const raw = this.store.in(row) as T;
    this.rows.set(raw.id, raw);
    this.store.reindex(this.name, raw);
    this.store.note(this.name, raw.id, "put");
    return this.store.out(this.name, raw);
  }
  /** Applies a patch and returns the stored row. */
  update(id: string, patch: Partial<T>): T {
    const row = this.rows.get(id);
    if (!row) throw new Error(`row ${id} missing`);
    Object.assign(row, this.store.in(patch));
    this.store.reindex(this.name, row);
    for (const field of Object.keys(patch)) this.store.note(this.name, id, field);
    return this.store.out(this.name, row);
  }
  delete(id: string): boolean {
    const had = this.rows.delete(id);
    if (had) {
      this.store.unindex(this.name, id);
      this.store.note(this.name, id, "del");
    }
    return had;
  }
  /**
   * The index `name` of this table, made from its rows on first use and kept up to date after.
   * Lookups through it cost the size of what they find, not of the table.
   */
  index(name: string, spec: IndexSpec<T>): Index<T> {
    return this.store.indexOf(this.name, name, spec, this.rows);
  }
  all(): T[] {
    const out: T[] = [];
    for (const row of this.rows.values()) out.push(this.store.out(this.name, row));
    this.scanned += this.rows.size;
    return out;
  }
  /** Predicates see the stored rows as they are; what they select is handed out. */
  where(pred: (row: T) => boolean): T[] {
    const out: T[] = [];
    for (const row of this.rows.values()) if (pred(row)) out.push(this.store.out(this.name, row));
    this.scanned += this.rows.size;
    return out;
  }
  find(pred: (row: T) => boolean): T | undefined {
    for (const row of this.rows.values()) {
      this.scanned++;
      if (pred(row)) return this.store.out(this.name, row);
    }
    return undefined;
  }
  get size(): number {
    return this.rows.size;
  }
}

/** What happened to a row since the last flush: written whole, deleted, or these fields written. */
type Change = "put" | "del" | Set<string>;

export class Store {
  private tables = new Map<string, Map<string, Row>>();
  private handles = new Map<string, Table<any>>();
  private sink?: Sink;
  private changes = new Map<string, Map<string, Change>>();
  private cleared?: Set<string>;
  private meta?: () => Record<string, unknown>;
  private lastMeta?: Record<string, unknown>;
  private scheduled = false;
  /** Settled by the next flush: replies waiting for their changes to be written. */
  private waiting?: { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void };
  private onFlushError?: (err: unknown) => void;
  private readonly proxies = new RowProxies((table, id, field) => {
    const row = this.tables.get(table)?.get(id);
    if (row) this.reindex(table, row);
    this.note(table, id, field);
  });
  /** Per table, its indexes by name (store-index.ts). */
  private indexes = new Map<string, Map<string, Index<any>>>();

  table<T extends Row>(name: string): Table<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new Table(this.rowsOf(name), name, this);
      this.handles.set(name, handle);
    }
    return handle as Table<T>;
  }

  /** Row counts per table, for the control API's "is anything left" checks. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, rows] of this.tables) out[name] = rows.size;
    return out;
  }

  /** Empties every table but those named (the tables' objects stay, so handles stay valid). */
  clearExcept(keep: string[]): void {
    for (const [name, rows] of this.tables) if (!keep.includes(name)) rows.clear();
    for (const [name, byName] of this.indexes) if (!keep.includes(name)) for (const index of byName.values()) index.clear();
    if (!this.sink) return;
    for (const name of this.changes.keys()) if (!keep.includes(name)) this.changes.delete(name);
    this.cleared = new Set(keep.filter((name) => !this.cleared || this.cleared.has(name)));
    this.schedule();
  }

  toJSON(): Record<string, Row[]> {
    const out: Record<string, Row[]> = {};
    for (const [name, rows] of this.tables) out[name] = [...rows.values()];
    return out;
  }

  /** Every stored row, table by table; safe to interleave with changes (for a snapshot written in steps). */
  *entries(): Generator<[string, Row]> {
    for (const [name, rows] of this.tables) for (const row of rows.values()) yield [name, row];
  }

  /** Replays one journalled change (loading; nothing is noted). */
  apply(op: Op): void {
    switch (op[0]) {
      case "put":
        this.rowsOf(op[1]).set(op[2].id, op[2]);
        this.reindex(op[1], op[2]);
        break;
      case "patch": {
        const row = this.rowsOf(op[1]).get(op[2]) as Record<string, unknown> | undefined;
        // A row deleted later in the journal may be missing from a snapshot taken meanwhile.
        if (!row) break;
        Object.assign(row, op[3]);
        for (const field of op[4]) delete row[field];
        this.reindex(op[1], row as unknown as Row);
        break;
      }
      case "del":
        this.rowsOf(op[1]).delete(op[2]);
        this.unindex(op[1], op[2]);
        break;
      case "clear":
        for (const [name, rows] of this.tables) if (!op[1].includes(name)) rows.clear();
        for (const [name, byName] of this.indexes) if (!op[1].includes(name)) for (const index of byName.values()) index.clear();
        break;
      case "meta":
        break;
      default:
        throw new Error(`unknown change '${String((op as unknown[])[0])}'`);
    }
  }

  /**
   * Starts noting changes for `sink`. `meta` gives the settings kept with the rows; they are
   * compared at each flush and written when they differ.
   */
  attach(sink: Sink, meta: () => Record<string, unknown>, onFlushError: (err: unknown) => void): void {
    this.sink = sink;
    this.meta = meta;
    this.lastMeta = copy(meta()) as Record<string, unknown>;
    this.onFlushError = onFlushError;
  }

  detach(): void {
    this.sink = undefined;
  }

  /** The settings kept beside the rows, as they are now. */
  metaNow(): Record<string, unknown> | undefined {
    return this.meta?.();
  }

  /**
   * Resolves once the changes noted so far are written: by the flush at the end of this turn of the
   * event loop, which every reply finishing in the same turn shares (one write for all of them).
   * Undefined when there is nothing to wait for.
   */
  commit(): Promise<void> | undefined {
    if (!this.sink || (this.changes.size === 0 && !this.cleared && same(this.meta!(), this.lastMeta))) return undefined;
    this.schedule();
    if (!this.waiting) {
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<void>((ok, fail) => {
        resolve = ok;
        reject = fail;
      });
      this.waiting = { promise, resolve, reject };
    }
    return this.waiting.promise;
  }

  /** Writes the changes noted since the last flush as one batch; throws (keeping them) when the sink does. */
  flush(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    try {
      this.write();
    } catch (err) {
      waiting?.reject(err);
      throw err;
    }
    waiting?.resolve();
  }

  private write(): void {
    if (!this.sink) return;
    const ops: Op[] = this.cleared ? [["clear", [...this.cleared]]] : [];
    for (const [name, rows] of this.changes) {
      const table = this.rowsOf(name);
      for (const [id, change] of rows) {
        const row = table.get(id) as Record<string, unknown> | undefined;
        if (change === "del" || !row) ops.push(["del", name, id]);
        else if (change === "put") ops.push(["put", name, row as unknown as Row]);
        else {
          const set: Record<string, unknown> = {};
          const unset: string[] = [];
          for (const field of change) {
            if (row[field] === undefined) unset.push(field);
            else set[field] = row[field];
          }
          ops.push(["patch", name, id, set, unset]);
        }
      }
    }
    const meta = this.meta!();
    const metaChanged = !same(meta, this.lastMeta);
    if (metaChanged) ops.push(["meta", copy(meta) as Record<string, unknown>]);
    if (ops.length === 0) return;
    this.sink.write(ops);
    this.changes.clear();
    this.cleared = undefined;
    if (metaChanged) this.lastMeta = copy(meta) as Record<string, unknown>;
  }

  /** @internal Notes a change to a row: "put", "del" or the name of a field written. */
  note(table: string, id: string, what: string): void {
    if (!this.sink) return;
    let rows = this.changes.get(table);
    if (!rows) this.changes.set(table, (rows = new Map()));
    const was = rows.get(id);
    if (what === "put" || what === "del") rows.set(id, what);
    else if (was === undefined) rows.set(id, new Set([what]));
    else if (was instanceof Set) was.add(what);
    else if (was === "del") rows.set(id, "put");
    this.schedule();
  }

  /** @internal The index `name` of a table, made from its rows when first asked for. */
  indexOf<T extends Row>(table: string, name: string, spec: IndexSpec<T>, rows: Map<string, T>): Index<T> {
    let byName = this.indexes.get(table);
    if (!byName) this.indexes.set(table, (byName = new Map()));
    let index = byName.get(name) as Index<T> | undefined;
    if (!index) {
      index = new Index(spec, (row) => this.out(table, row));
      for (const row of rows.values()) index.put(row);
      byName.set(name, index);
    }
    return index;
  }

  /** @internal A row inserted or written: each index of its table files it again. */
  reindex(table: string, row: Row): void {
    const byName = this.indexes.get(table);
    if (byName) for (const index of byName.values()) index.put(row);
  }

  /** @internal A row deleted. */
  unindex(table: string, id: string): void {
    const byName = this.indexes.get(table);
    if (byName) for (const index of byName.values()) index.remove(id);
  }

  /** @internal The row as handed out: itself in memory, a proxy that notes writes when durable. */
  out<T extends Row>(table: string, row: T): T {
    return this.sink ? this.proxies.wrap(table, row) : row;
  }

  /** @internal A value about to be stored (row-proxies.ts). */
  in(value: unknown): unknown {
    return this.sink ? this.proxies.unwrap(value) : value;
  }

  private rowsOf(name: string): Map<string, Row> {
    let rows = this.tables.get(name);
    if (!rows) this.tables.set(name, (rows = new Map()));
    return rows;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flushLater);
  }

  private readonly flushLater = () => {
    this.scheduled = false;
    try {
      this.flush();
    } catch (err) {
      this.onFlushError?.(err);
    }
  };
}

export const newId = (): string => randomUUID();
