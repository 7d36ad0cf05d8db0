// Rows a durable store hands out are proxies, so that a model writing a row directly (`row.status =
// ...`, `row.cron.tags.push(...)`) is seen: a write, however deep, is noted on the row, by table,
// id and the top field that holds it, and that field goes to the journal. Each stored object keeps
// its proxy under a symbol (one proxy per object, so a row handed out twice is the same object);
// a proxy answers TARGET with the object behind it.

/** On a stored object, its proxy (not enumerable, so never copied or written); asked of a proxy, the stored object. */
const PROXY = Symbol("proxy");
const TARGET = Symbol("target");

export type Noter = (table: string, id: string, field: string) => void;

export class RowProxies {
  private readonly roots = new Map<string, ProxyHandler<object>>();

  constructor(private readonly note: Noter) {}

  /** The row as handed out. */
  wrap<T extends object>(table: string, row: T): T {
    return this.proxyOf(row, () => this.handler(table));
  }

  /** A value about to be stored: proxies of stored objects inside it become copies, so no two rows share an object. */
  unwrap(value: unknown): unknown {
    if (value === null || typeof value !== "object") return value;
    const target = (value as Record<symbol, object | undefined>)[TARGET];
    if (target) return copy(target);
    if (!plain(value)) return value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const v = value[i];
        if (v !== null && typeof v === "object") value[i] = this.unwrap(v);
      }
    } else {
      const obj = value as Record<string, unknown>;
      for (const key in obj) {
        const v = obj[key];
        if (v !== null && typeof v === "object") obj[key] = this.unwrap(v);
      }
    }
    return value;
  }

  /**
   * Writes to a row (root undefined: the field is the property written) or to an object nested in
   * one (root: the row's id and the top field that holds it) are noted on the row.
   */
  private handler(table: string, root?: { id: string; field: string }): ProxyHandler<object> {
    if (!root) {
      const cached = this.roots.get(table);
      if (cached) return cached;
    }
    const self = this;
    const written = (target: object, prop: string | symbol) => {
      if (typeof prop === "string") self.note(table, root ? root.id : (target as { id: string }).id, root ? root.field : prop);
    };
    const handler: ProxyHandler<object> = {
      get(target, prop) {
        if (prop === TARGET) return target;
        const v = (target as Record<PropertyKey, unknown>)[prop];
        if (v === null || typeof v !== "object") return v;
        const cached = (v as Record<symbol, unknown>)[PROXY];
        if (cached || typeof prop !== "string" || !plain(v)) return cached ?? v;
        const where = root ?? { id: (target as { id: string }).id, field: prop };
        return self.proxyOf(v, () => self.handler(table, where));
      },
      set(target, prop, value) {
        (target as Record<PropertyKey, unknown>)[prop] = self.unwrap(value);
        written(target, prop);
        return true;
      },
      deleteProperty(target, prop) {
        delete (target as Record<PropertyKey, unknown>)[prop];
        written(target, prop);
        return true;
      },
      defineProperty(target, prop, desc) {
        const ok = Reflect.defineProperty(target, prop, desc);
        written(target, prop);
        return ok;
      },
    };
    if (!root) this.roots.set(table, handler);
    return handler;
  }

  /** The object's proxy, kept on the object (no WeakMap for the GC to trace). */
  private proxyOf<T extends object>(target: T, handler: () => ProxyHandler<object>): T {
    let proxy = (target as Record<symbol, T | undefined>)[PROXY];
    if (!proxy) {
      // A frozen object (a shared constant, say) cannot be written, so there is nothing to note.
      if (Object.isFrozen(target)) return target;
      proxy = new Proxy(target, handler()) as T;
      if (Object.isExtensible(target)) Object.defineProperty(target, PROXY, { value: proxy, configurable: true });
    }
    return proxy;
  }
}

/** Plain objects and arrays are tracked and copied; Buffers, Dates and the like are values. */
export function plain(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Deep equality of JSON values (the settings compared at each flush). */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object" || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  if (ka.length !== Object.keys(b as object).length) return false;
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function copy(v: unknown): unknown {
  if (v === null || typeof v !== "object" || !plain(v)) return v;
  if (Array.isArray(v)) return v.map(copy);
  const out: Record<string, unknown> = {};
  for (const key in v as Record<string, unknown>) out[key] = copy((v as Record<string, unknown>)[key]);
  return out;
}

