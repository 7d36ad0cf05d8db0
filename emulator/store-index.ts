// Secondary indexes of the store's tables (store.ts), so that what a request looks up costs the
// same whatever the store holds: a zone's records, a bucket's objects by key, a service's env vars,
// a name checked for uniqueness. Each index groups rows by a key (their parent's id, say) and keeps
// each group in order, in one B+ tree whose keys are [group, place, seq]. `seq` is the order rows
// were first inserted in, so a group without a place lists as a scan of the table would, and one
// sorted by a place keeps the scan's order for equal places, as a stable sort would.
// The fields a key reads may change only through the Table (insert, update) or, when durable,
// through a row's proxy, which notes the write: both re-key the row here.
import BTree from "sorted-btree";

type Row = { id: string };

export interface IndexSpec<T> {
  /** The group a row is listed in (its parent's id, a name); undefined leaves it out of the index. */
  group: (row: T) => string | undefined;
  /** Its place in the group (a key, a date); without it, the order rows were inserted in. */
  place?: (row: T) => string | number;
}

/** [group, place, seq] */
export type Entry = [string, string | number, number];

/** Before and after every place, string or number. */
const LOW = -Infinity;
const HIGH = Infinity;
const cmp = (a: string | number, b: string | number) => (a === b ? 0 : a === LOW || b === HIGH ? -1 : a === HIGH || b === LOW ? 1 : a < b ? -1 : 1);
const compare = (a: Entry, b: Entry) => cmp(a[0], b[0]) || cmp(a[1], b[1]) || cmp(a[2], b[2]);

/** Where a page stopped: the last row listed, found again by id, or by its place if it is gone. */
export interface After {
  id: string;
  place: string | number;
  seq: number;
}

export class Index<T extends Row> {
  private readonly tree = new BTree<Entry, T>(undefined, compare);
  private readonly at = new Map<string, Entry>();
  private readonly counts = new Map<string, number>();
  private seq = 0;
  /** Rows visited by lookups since made: what the tests count instead of timing. */
  visited = 0;

  /** `out` hands a stored row out (store.ts: itself, or its proxy when durable). */
  constructor(private readonly spec: IndexSpec<T>, private readonly out: (row: T) => T) {}

  /** Adds a row, or moves it if its key changed (keeping its seq, as a Map keeps a replaced row's place). */
  put(row: T): void {
    const group = this.spec.group(row);
    const was = this.at.get(row.id);
    if (group === undefined) {
      if (was) this.remove(row.id);
      return;
    }
    const place = this.spec.place ? this.spec.place(row) : 0;
    if (was && was[0] === group && was[1] === place) {
      this.tree.set(was, row);
      return;
    }
    if (was) this.forget(was);
    const entry: Entry = [group, place, was ? was[2] : this.seq++];
    this.tree.set(entry, row);
    this.at.set(row.id, entry);
    this.counts.set(group, (this.counts.get(group) ?? 0) + 1);
  }

  remove(id: string): void {
    const was = this.at.get(id);
    if (!was) return;
    this.forget(was);
    this.at.delete(id);
  }

  private forget(entry: Entry): void {
    this.tree.delete(entry);
    const n = this.counts.get(entry[0])! - 1;
    if (n) this.counts.set(entry[0], n);
    else this.counts.delete(entry[0]);
  }

  /** How many rows the group holds. */
  count(group: string): number {
    return this.counts.get(group) ?? 0;
  }

  clear(): void {
    this.tree.clear();
    this.at.clear();
    this.counts.clear();
  }

  /** The group's rows, in order. */
  list(group: string): T[] {
    return [...this.rows(group)];
  }

  /** The group's rows in order (or reversed), from just after `after` when given. */
  *rows(group: string, opts: { after?: After; reverse?: boolean } = {}): Generator<T> {
    const { after, reverse } = opts;
    let start: Entry;
    const last = after && this.at.get(after.id);
    if (last && last[0] === group) start = last;
    else if (after) start = [group, after.place, after.seq];
    else start = reverse ? [group, HIGH, HIGH] : [group, LOW, LOW];
    const it = reverse ? this.tree.entriesReversed(start, undefined, true) : this.tree.entries(start);
    for (const [key, row] of it) {
      if (key[0] !== group) return;
      if (!reverse && after && compare(key, start) <= 0) continue;
      this.visited++;
      yield this.out(row);
    }
  }

  /** The first row of the group at this place. */
  first(group: string, place: string | number): T | undefined {
    const pair = this.tree.getPairOrNextHigher([group, place, LOW]);
    this.visited++;
    return pair && pair[0][0] === group && pair[0][1] === place ? this.out(pair[1]) : undefined;
  }

  /** Where a page that ended on this row resumes. */
  after(row: T): After | undefined {
    const e = this.at.get(row.id);
    return e && { id: row.id, place: e[1], seq: e[2] };
  }

  get size(): number {
    return this.at.size;
  }
}
