// The store's indexes (emulator/store-index.ts): each lists a group exactly as a scan of the table
// sorted by place would, through every way a row changes and a replay of the journal; and what a
// request costs does not grow with what the store holds. Costs are counted (rows a lookup visits,
// rows scanned, journal bytes written), never timed: a TXT record created in a zone of 2,000
// records got 20 times slower than in an empty one, each create scanning and sorting the zone.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seed, type Workspace } from "../../emulator/auth";
import { Emu } from "../../emulator/emu";
import { StateDir } from "../../emulator/journal";
import { DEFAULT_REGION } from "../../emulator/models/catalogue";
import { createRecord, createZone, type DnsZone, recordsByZone } from "../../emulator/models/dns";
import { createBucket } from "../../emulator/models/storage";
import { listObjects, objectsByKey, putObject } from "../../emulator/models/objects";
import { createEnvironment, createProject, projectsByWorkspace } from "../../emulator/models/projects";
import { createService } from "../../emulator/models/services";
import { pageOf } from "../../emulator/pages";
import { Store } from "../../emulator/store";

let dir: string;
/** Emulators a test built; closing one removes its temporary body directory (an exit listener registered under Jest never runs). */
const built: Emu[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cp-index-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const emu of built.splice(0)) emu.emit("close", undefined);
});

/** A small deterministic generator, so a failure replays. */
function random(seedValue: number) {
  let s = seedValue >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

interface Item {
  id: string;
  parent: string;
  key: string;
  note?: { text: string };
}

const spec = { group: (r: Item) => r.parent, place: (r: Item) => r.key };
const bySpec = (rows: Item[], parent: string) => rows.filter((r) => r.parent === parent).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
const ids = (rows: Item[]) => rows.map((r) => r.id);

test("an index lists each group as the sorted scan does, through inserts, replacements, updates, direct writes, deletes, a clear and a replay", async () => {
  const path = join(dir, "state");
  const store = new Store();
  const state = await StateDir.open(path, store);
  state.attach(() => ({}), (err) => {
    throw err;
  });
  const t = store.table<Item>("items");
  const ordered = t.index("ordered", spec);
  const plain = t.index("plain", { group: (r) => r.parent });
  const next = random(7);
  const parents = ["p0", "p1", "p2"];
  const check = () => {
    for (const p of parents) {
      expect(ids(ordered.list(p))).toEqual(ids(bySpec(t.all(), p)));
      expect(ids(plain.list(p))).toEqual(ids(t.where((r) => r.parent === p)));
      expect(ordered.count(p)).toBe(t.where((r) => r.parent === p).length);
    }
  };
  for (let step = 0; step < 600; step++) {
    const id = `r${next(40)}`;
    const row = t.get(id);
    const op = next(10);
    // Keys repeat on purpose: equal places keep the order rows were inserted in.
    if (op < 4) t.insert({ id, parent: parents[next(3)], key: `k${next(8)}` });
    else if (op < 6 && row) t.update(id, next(2) ? { parent: parents[next(3)] } : { key: `k${next(8)}` });
    else if (op < 8 && row) {
      // A model writing the row it was handed (a proxy when durable).
      if (next(2)) row.key = `k${next(8)}`;
      else row.parent = parents[next(3)];
    } else if (op < 9 && row) t.delete(id);
    if (step === 300) store.clearExcept([]);
    check();
  }
  store.flush();
  await state.close();

  const again = new Store();
  const reopened = await StateDir.open(path, again);
  try {
    const t2 = again.table<Item>("items");
    // Made before the replay, kept up to date by it; and made after it, from the rows.
    const early = t2.index("ordered", spec);
    for (const p of parents) {
      expect(ids(early.list(p))).toEqual(ids(ordered.list(p)));
      expect(ids(t2.index("plain", { group: (r) => r.parent }).list(p))).toEqual(ids(plain.list(p)));
    }
  } finally {
    await reopened.close();
  }
});

test("a page resumes after the row it ended on, or at that row's place once it is deleted; reversed too", () => {
  const store = new Store();
  const t = store.table<Item>("items");
  const index = t.index("ordered", spec);
  for (let i = 0; i < 30; i++) t.insert({ id: `r${i}`, parent: "p", key: `k${String(i % 10).padStart(2, "0")}` });
  const keyOf = (id: string) => `k${String(Number(id.slice(1)) % 10).padStart(2, "0")}`;
  for (const reverse of [false, true]) {
    const all = ids(index.list("p"));
    const want = reverse ? [...all].reverse() : all;
    const got: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: string[]; nextCursor: string | null } = pageOf(index, "p", cursor ? { cursor } : { limit: 4 }, (r) => r.id, { reverse });
      got.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    expect(got).toEqual(want);

    const first = pageOf(index, "p", { limit: 5 }, (r) => r.id, { reverse });
    // The row the cursor names is gone: the next page starts where it stood.
    t.delete(first.data[4]);
    const second = pageOf(index, "p", { cursor: first.nextCursor }, (r) => r.id, { reverse });
    expect(second.data).toEqual(want.slice(5, 10));
    t.insert({ id: first.data[4], parent: "p", key: keyOf(first.data[4]) });
  }
});

/** The model layer on its own, as the cascade tests use it. */
function platform() {
  const store = new Store();
  const emu = new Emu(store, { defaultRegion: DEFAULT_REGION, dnsPropagationMs: 0, speed: 0, delegations: [] });
  built.push(emu);
  const ws = store.table<Workspace>("workspaces").get(seed(store, emu.now(), DEFAULT_REGION).workspaceId)!;
  /** Rows all, where and find visited, every table together. */
  const scanned = () => Object.keys(store.counts()).reduce((n, name) => n + store.table(name).scanned, 0);
  return { store, emu, ws, scanned };
}

/** What one call costs: rows scanned, and rows the given index visited. */
function cost(p: ReturnType<typeof platform>, index: { visited: number }, call: () => void) {
  const s0 = p.scanned();
  const v0 = index.visited;
  call();
  return { scanned: p.scanned() - s0, visited: index.visited - v0 };
}

/** A zone holding n TXT records, as the load that found the slow create made them. */
function zoneWith(n: number) {
  const p = platform();
  const zone: DnsZone = createZone(p.emu, p.ws, { name: "load.example" });
  for (let i = 0; i < n; i++) createRecord(p.emu, zone, { name: `r${i}`, type: "TXT", content: `v=${i}` });
  return { ...p, zone };
}

test("creating a record costs the same in a zone of 2,000 records as in one of 20: no scan of the zone", () => {
  const costs = [20, 2_000].map((n) => {
    const p = zoneWith(n);
    const index = p.store.table("dnsRecords").index("name", { group: () => undefined });
    return cost(p, index, () => createRecord(p.emu, p.zone, { name: "new", type: "TXT", content: "v=new" }));
  });
  expect(costs[1]).toEqual(costs[0]);
  expect(costs[0].scanned).toBe(0);
  // A duplicate is still refused, and only rows at that name are compared.
  const p = zoneWith(50);
  expect(() => createRecord(p.emu, p.zone, { name: "r7", type: "TXT", content: "v=7" })).toThrow(/identical TXT record/);
});

test("creating a service costs the same in an environment of 300 services as in one of 3", () => {
  const costs = [3, 300].map((n) => {
    const p = platform();
    const project = createProject(p.emu, p.ws, { name: "home" });
    const env = createEnvironment(p.emu, project, { name: "production" });
    for (let i = 0; i < n; i++) createService(p.emu, env, project, { name: `s-${i}`, type: "WEB", image: "nginx:1.27", envVars: [{ key: "MODE", value: "on" }] });
    const s0 = p.scanned();
    createService(p.emu, env, project, { name: "new", type: "WEB", image: "nginx:1.27", envVars: [{ key: "MODE", value: "on" }] });
    // Names are unique in an environment whatever their case, still.
    expect(() => createService(p.emu, env, project, { name: "S-1", type: "WEB", image: "nginx:1.27" })).toThrow(/already has a service named 's-1'/);
    return p.scanned() - s0;
  });
  expect(costs[1]).toBe(costs[0]);
});

test("a page of records at any depth visits the page and one row more, and scans nothing", () => {
  const p = zoneWith(1_000);
  const index = recordsByZone(p.emu);
  let cursor: string | null = null;
  let pages = 0;
  do {
    const c = cost(p, index, () => {
      const page = pageOf(index, p.zone.id, cursor ? { cursor } : { limit: 100 }, (r) => r.id);
      cursor = page.nextCursor;
    });
    expect(c.scanned).toBe(0);
    expect(c.visited).toBeLessThanOrEqual(101);
    pages++;
  } while (cursor);
  expect(pages).toBe(10);
});

test("the projects page at depth and an S3 listing after a key visit what they return", () => {
  const p = platform();
  for (let i = 0; i < 500; i++) createProject(p.emu, p.ws, { name: `p-${i}` });
  const projects = projectsByWorkspace(p.emu);
  const first = pageOf(projects, p.ws.id, { limit: 100 }, (x) => x.name, { reverse: true });
  expect(first.data[0]).toBe("p-499");
  const deep = cost(p, projects, () => pageOf(projects, p.ws.id, { cursor: first.nextCursor }, (x) => x.name, { reverse: true }));
  expect(deep).toEqual({ scanned: 0, visited: 101 });

  const bucket = createBucket(p.emu, p.ws, DEFAULT_REGION, { name: "deep-bucket" });
  for (let i = 0; i < 500; i++) putObject(p.emu, bucket, `logs/${String(i).padStart(4, "0")}.txt`, Buffer.from("x"), "text/plain");
  let listing: ReturnType<typeof listObjects> | undefined;
  const c = cost(p, objectsByKey(p.emu), () => {
    listing = listObjects(p.emu, bucket.id, { prefix: "logs/", after: "logs/0399.txt", maxKeys: 10 });
  });
  expect(listing!.contents.map((o) => o.key)).toEqual(Array.from({ length: 10 }, (_, i) => `logs/0${400 + i}.txt`));
  expect(c).toEqual({ scanned: 0, visited: 11 });
});

test("a durable create appends the same journal bytes whatever the zone holds", async () => {
  const bytes = [];
  for (const n of [20, 2_000]) {
    const path = join(dir, `state-${n}`);
    const store = new Store();
    const state = await StateDir.open(path, store, { compactMinBytes: 1 << 30 });
    state.attach(() => ({}), (err) => {
      throw err;
    });
    const emu = new Emu(store, { defaultRegion: DEFAULT_REGION, dnsPropagationMs: 0, speed: 0, delegations: [] });
    const ws = store.table<Workspace>("workspaces").get(seed(store, emu.now(), DEFAULT_REGION).workspaceId)!;
    const zone = createZone(emu, ws, { name: "load.example" });
    for (let i = 0; i < n; i++) createRecord(emu, zone, { name: `r${i}`, type: "TXT", content: `v=${i}` });
    store.flush();
    const journal = join(path, "journal-1.jsonl");
    const before = statSync(journal).size;
    createRecord(emu, zone, { name: "new", type: "TXT", content: "v=new" });
    store.flush();
    bytes.push(statSync(journal).size - before);
    await state.close();
  }
  expect(bytes[1]).toBe(bytes[0]);
  expect(bytes[0]).toBeLessThan(600);
});

test("replies kept for Idempotency-Key retries go after their 24 hours, a few at each keyed request, found without a scan", async () => {
  const { withIdempotency } = await import("../../emulator/idempotency");
  const p = platform();
  const keyed = (key: string) => withIdempotency(p.emu, "POST /v1/projects", key, { name: key }, async () => ({ status: 201, body: { key } }));
  for (let i = 0; i < 100; i++) await keyed(`k${i}`);
  const table = p.store.table("idempotency");
  expect(table.size).toBe(100);
  // Within the day a retry replays; past it, the entries go, 64 at a time, oldest first.
  expect((await keyed("k0")).replayed).toBe(true);
  p.emu.clock.advance(24 * 60 * 60 * 1000);
  const s0 = p.scanned();
  await keyed("late-1");
  expect(table.size).toBe(100 - 64 + 1);
  await keyed("late-2");
  expect(table.size).toBe(2);
  expect(p.scanned() - s0).toBe(0);
});
