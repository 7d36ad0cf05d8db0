// A map that forgets: entries idle longer than `idleMs` expire, and past `cap` entries the one
// idle longest goes. The keys of the maps that use it come from requests (an Authorization
// header, an email address), so without both a request could grow memory without end.
// Kept in last-use order (a Map iterates in insertion order, and a use re-inserts), so expiry
// reads from the oldest end and stops at the first live entry: O(1) per use, amortized.

export class IdleMap<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(readonly cap: number, private readonly idleMs: () => number) {
    if (!(Number.isInteger(cap) && cap >= 1)) throw new RangeError(`cap must be a whole number of at least 1, not ${cap}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value kept for `key` (`make` makes it when absent or expired), marked as used at `now`. */
  use(key: string, now: number, make: () => V): V {
    this.expire(now);
    const kept = this.entries.get(key);
    this.entries.delete(key);
    const value = kept ? kept.value : make();
    this.entries.set(key, { value, at: now });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.cap) break;
      this.entries.delete(oldest);
    }
    return value;
  }

  clear(): void {
    this.entries.clear();
  }

  /** Drops entries idle for `idleMs` or more, oldest first. */
  expire(now: number): void {
    const idle = this.idleMs();
    for (const [key, e] of this.entries) {
      if (now - e.at < idle) break;
      this.entries.delete(key);
    }
  }
}
