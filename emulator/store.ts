// In-memory store: named tables of plain JSON rows, so the whole state serialises to one file
// (`--state FILE`) and a reset is a fresh object.
import { readFileSync, writeFileSync, renameSync, existsSync } from "node:fs";
import { randomUUID } from "node:crypto";

export interface Row {
  id: string;
}

export class Table<T extends Row> {
  constructor(private readonly rows: Map<string, T>) {}
  get(id: string): T | undefined {
    return this.rows.get(id);
  }
  has(id: string): boolean {
    return this.rows.has(id);
  }
  insert(row: T): T {
    this.rows.set(row.id, row);
    return row;
  }
  /** Applies a patch and returns the stored row. */
  update(id: string, patch: Partial<T>): T {
    const row = this.rows.get(id);
    if (!row) throw new Error(`row ${id} missing`);
    Object.assign(row, patch);
    return row;
  }
  delete(id: string): boolean {
    return this.rows.delete(id);
  }
  all(): T[] {
    return [...this.rows.values()];
  }
  where(pred: (row: T) => boolean): T[] {
    return this.all().filter(pred);
  }
  find(pred: (row: T) => boolean): T | undefined {
    for (const row of this.rows.values()) if (pred(row)) return row;
    return undefined;
  }
  get size(): number {
    return this.rows.size;
  }
}

export class Store {
  private tables = new Map<string, Map<string, Row>>();

  table<T extends Row>(name: string): Table<T> {
    let rows = this.tables.get(name);
    if (!rows) {
      rows = new Map();
      this.tables.set(name, rows);
    }
    return new Table(rows as Map<string, T>);
  }

  /** Row counts per table, for the control API's "is anything left" checks. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, rows] of this.tables) out[name] = rows.size;
    return out;
  }

  clear(): void {
    this.tables.clear();
  }

  toJSON(): Record<string, Row[]> {
    const out: Record<string, Row[]> = {};
    for (const [name, rows] of this.tables) out[name] = [...rows.values()];
    return out;
  }

  load(data: Record<string, Row[]>): void {
    this.clear();
    for (const [name, rows] of Object.entries(data)) {
      this.tables.set(name, new Map(rows.map((r) => [r.id, r])));
    }
  }

  saveTo(file: string): void {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.toJSON()));
    renameSync(tmp, file);
  }

  static loadFrom(file: string): Store | undefined {
    if (!existsSync(file)) return undefined;
    const store = new Store();
    store.load(JSON.parse(readFileSync(file, "utf8")));
    return store;
  }
}

export const newId = (): string => randomUUID();
