// The durable store on its own: every way a model changes a row reaches the journal, a change made
// outside a request is written on the next turn, a torn last batch and a crash during compaction
// load again, a damaged state names the file and line, large rows are written only when they
// change, legacy JSON state files are converted, and one process at a time holds a directory.
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readState, StateDir } from "../../emulator/journal";
import { Store } from "../../emulator/store";

let dir: string;
let path: string;
const open: StateDir[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cp-store-"));
  path = join(dir, "state");
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function openState(opts: { compactMinBytes?: number; log?: (msg: string, fields?: Record<string, unknown>) => void } = {}, at = path) {
  const store = new Store();
  const state = await StateDir.open(at, store, opts);
  open.push(state);
  const meta = { delegations: [] as string[] };
  const flushErrors: unknown[] = [];
  state.attach(() => meta, (err) => flushErrors.push(err));
  return { store, state, meta, flushErrors };
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v));
const onDisk = (at = path) => json(readState(at).tables);
const journalFiles = (at = path) => readdirSync(at).filter((f) => f.startsWith("journal-"));
const nextTurn = () => new Promise((r) => setTimeout(r, 20));

test("every way a model changes a row reaches the journal: table calls, direct writes however deep, rows from any finder", async () => {
  const { store } = await openState();
  const t = store.table<any>("services");
  const a = t.insert({ id: "a", status: "NEW", cron: { schedule: "* * * * *", tags: ["x"] }, db: null });
  t.insert({ id: "b", status: "NEW", cron: null });
  t.insert({ id: "c", status: "NEW" });
  store.flush();

  a.status = "DEPLOYING";
  t.get("a")!.cron.schedule = "0 * * * *";
  t.where((r) => r.id === "a")[0].cron.tags.push("y");
  t.find((r) => r.id === "b")!.extra = { nested: { deep: 1 } };
  t.all().find((r) => r.id === "b")!.extra.nested.deep = 2;
  Object.assign(t.get("c")!, { status: "LIVE", port: 8080 });
  delete t.get("c")!.port;
  t.update("b", { status: "RUNNING", cron: a.cron }); // a nested object copied, not shared
  a.cron.tags.push("z");
  t.insert({ id: "d", status: "NEW" });
  t.delete("d");
  const region = Object.freeze({ key: "af-west-1" });
  t.insert({ id: "e", region });
  expect(t.get("e")!.region).toBe(region);
  store.flush();

  expect(onDisk()).toEqual(json(store.toJSON()));
  expect(onDisk().services.find((r: any) => r.id === "b").cron.tags).toEqual(["x", "y"]);
  expect(onDisk().services.find((r: any) => r.id === "a").cron.tags).toEqual(["x", "y", "z"]);
});

test("a change made outside a request (a lifecycle timer) is written on the next turn, with no flush called", async () => {
  const { store, meta } = await openState();
  store.table<any>("deploys").insert({ id: "d1", status: "BUILDING" });
  await nextTurn();
  const row = store.table<any>("deploys").get("d1")!;
  await new Promise<void>((done) => setTimeout(() => {
    row.status = "RUNNING";
    meta.delegations.push("shop.test");
    done();
  }, 5));
  await nextTurn();
  expect(onDisk().deploys).toEqual([{ id: "d1", status: "RUNNING" }]);
  expect(readState(path).meta).toEqual({ delegations: ["shop.test"] });
});

test("closeNow, for a process that must exit at once, writes the changes noted but not yet written, and unlocks", async () => {
  const { store, state } = await openState();
  const t = store.table<any>("projects");
  t.insert({ id: "p1" });
  store.flush();
  t.insert({ id: "p2" }); // noted, not yet written
  state.closeNow();
  expect(onDisk().projects.map((r: any) => r.id)).toEqual(["p1", "p2"]);
  const again = await openState();
  expect(again.store.table<any>("projects").all().map((r) => r.id)).toEqual(["p1", "p2"]);
});

test("replies finishing in the same turn share one write, and none is released before it; a failed write fails them and keeps the changes", async () => {
  const { store, flushErrors } = await openState();
  const t = store.table<any>("projects");
  const lines = () => readFileSync(join(path, journalFiles()[0]), "utf8").split("\n").filter(Boolean).length;
  await nextTurn();
  const before = lines();
  const released: string[] = [];
  const replies = ["a", "b", "c"].map((id) => {
    t.insert({ id, name: id });
    return store.commit()!.then(() => released.push(id));
  });
  expect(store.commit()).toBeDefined();
  await Promise.resolve();
  expect({ released, lines: lines() }).toEqual({ released: [], lines: before });
  await Promise.all(replies);
  expect({ released, lines: lines() }).toEqual({ released: ["a", "b", "c"], lines: before + 1 });
  expect(store.commit()).toBeUndefined();

  // A sink that fails once: the waiting reply fails, the next write carries the change.
  const sink = (store as any).sink;
  const write = sink.write.bind(sink);
  sink.write = () => {
    sink.write = write;
    throw new Error("disk full");
  };
  t.update("a", { name: "renamed" });
  await expect(store.commit()).rejects.toThrow("disk full");
  expect(String(flushErrors)).toContain("disk full");
  t.insert({ id: "d", name: "d" });
  await store.commit();
  expect(onDisk().projects.map((p: any) => p.name)).toEqual(["renamed", "b", "c", "d"]);
});

test("a batch cut short at the end of the journal is ignored and cut off; the next batches follow the last whole one", async () => {
  const first = await openState();
  first.store.table<any>("projects").insert({ id: "p1", name: "kept" });
  await first.state.close();
  const [journal] = journalFiles();
  appendFileSync(join(path, journal), '{"ops":[["put","projects",{"id":"p2","name":"torn"');

  const logs: string[] = [];
  const second = await openState({ log: (msg) => logs.push(msg) });
  expect(second.store.table<any>("projects").all().map((p) => p.name)).toEqual(["kept"]);
  expect(logs.join("\n")).toContain("cut short");
  second.store.table<any>("projects").insert({ id: "p3", name: "after" });
  await second.state.close();

  const third = await openState();
  expect(third.store.table<any>("projects").all().map((p) => p.name)).toEqual(["kept", "after"]);
  expect(readFileSync(join(path, journal), "utf8").split("\n").every((l) => l === "" || JSON.parse(l))).toBe(true);
});

test("a damaged batch in the middle stops the load, naming the file, the line and the byte, never what the line holds", async () => {
  const { store, state } = await openState();
  const keys = store.table<any>("apiKeys");
  keys.insert({ id: "k1", token: "svc_live_SECRETSECRET" });
  store.flush();
  keys.update("k1", { token: "svc_live_OTHERSECRET" });
  await state.close();
  const file = join(path, journalFiles()[0]);
  const lines = readFileSync(file, "utf8").split("\n");
  lines[1] = lines[1].replace('"k1",', '"k1" ');
  writeFileSync(file, lines.join("\n"));
  const err = await StateDir.open(path, new Store()).catch((e: Error) => e);
  expect(String(err)).toMatch(new RegExp(`state ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, line 2 \\(byte \\d+\\): not valid JSON \\(column \\d+\\)`));
  expect(String(err)).not.toContain("SECRET");
});

test("compaction keeps the journal bounded, and the state loads at each point a crash could stop it", async () => {
  const { store, state } = await openState({ compactMinBytes: 64 << 10 });
  const t = store.table<any>("objects");
  // Over a megabyte of rows, so the snapshot is written in more than one step.
  for (let i = 0; i < 300; i++) t.insert({ id: `o${i}`, body: "x".repeat(5_000), version: 0 });
  store.flush();
  await state.compact();

  const compacting = state.compact();
  // The snapshot is written a megabyte a turn of the event loop: wait for the turn its partial
  // file is there; from there to the copy nothing yields, so the compaction stays where it is.
  for (let turns = 0; !existsSync(join(path, "snapshot.jsonl.tmp")); turns++) {
    expect(turns).toBeLessThan(10_000);
    await new Promise((r) => setImmediate(r));
  }
  // Mid-compaction: the old snapshot, both journals and a partial snapshot.tmp.
  for (let i = 0; i < 10; i++) t.update(`o${i}`, { version: 1 });
  store.flush();
  const midway = join(dir, "midway");
  cpSync(path, midway, { recursive: true });
  const expectedMidway = json(store.toJSON());
  expect(readdirSync(midway).sort()).toEqual(expect.arrayContaining(["snapshot.jsonl", "snapshot.jsonl.tmp", ...journalFiles(midway)]));
  expect(journalFiles(midway)).toHaveLength(2);
  await compacting;
  // Just after the new snapshot landed, before the old journal was deleted.
  const landed = join(dir, "landed");
  cpSync(path, landed, { recursive: true });
  for (const f of journalFiles(midway)) cpSync(join(midway, f), join(landed, f));
  rmSync(join(landed, "lock"));
  expect(journalFiles(landed)).toHaveLength(2);

  rmSync(join(midway, "lock"));
  expect(onDisk(midway)).toEqual(expectedMidway);
  expect(onDisk(landed)).toEqual(expectedMidway);
  const reopened = await openState({}, landed);
  expect(json(reopened.store.toJSON())).toEqual(expectedMidway);
  expect(journalFiles(landed)).toHaveLength(1);

  // A stream of writes, 9 MB in all: compactions start by themselves and bound the journal.
  const gen = () => Math.max(...journalFiles().map((f) => Number(/\d+/.exec(f)![0])));
  const startGen = gen();
  let largest = 0;
  let written = 0;
  for (let round = 0; round < 60; round++) {
    for (let i = 0; i < 30; i++) t.update(`o${i}`, { version: round, body: `${round % 10}`.repeat(5_000) });
    store.flush();
    written += 30 * 5_000;
    largest = Math.max(largest, ...journalFiles().map((f) => statSync(join(path, f)).size));
    await new Promise((r) => setTimeout(r, 5));
  }
  while (journalFiles().length > 1 || existsSync(join(path, "snapshot.jsonl.tmp"))) await nextTurn();
  expect(gen() - startGen).toBeGreaterThanOrEqual(2);
  expect(largest).toBeLessThan(written / 2);
  expect(onDisk()).toEqual(json(store.toJSON()));
});

test("a row holding a large string or bytes is written when it changes, not when it is read or a small field moves", async () => {
  const { store } = await openState();
  const t = store.table<any>("staticContent");
  const journalSize = () => statSync(join(path, journalFiles()[0])).size;
  t.insert({ id: "c1", files: { "index.html": "y".repeat(2 << 20) }, bytes: Buffer.from([0, 1, 2, 255]), hits: 0 });
  store.flush();
  const before = journalSize();
  expect(before).toBeGreaterThan(2 << 20);
  for (let i = 0; i < 100; i++) {
    t.update("c1", { hits: i });
    const row = t.get("c1")!;
    row.hits = i + 1;
    expect(t.where((r) => r.id === "c1")[0].files["index.html"]).toHaveLength(2 << 20);
    store.flush();
  }
  expect(journalSize() - before).toBeLessThan(20_000);
  const back = readState(path).tables.staticContent[0] as any;
  expect(Buffer.isBuffer(back.bytes) && [...back.bytes]).toEqual([0, 1, 2, 255]);
  expect(back.hits).toBe(100);
});

test("a legacy JSON state file is converted into a directory (the file kept beside it); a broken one names the file, line and column", async () => {
  const legacy = { projects: [{ id: "p1", name: "from v1" }], seed: [{ id: "seed", value: { apiKey: "svc_live_x" } }] };
  writeFileSync(path, JSON.stringify(legacy));
  const { store } = await openState();
  expect(store.table<any>("projects").get("p1")).toEqual({ id: "p1", name: "from v1" });
  expect(statSync(path).isDirectory()).toBe(true);
  expect(JSON.parse(readFileSync(`${path}.v1.json`, "utf8"))).toEqual(legacy);

  const broken = join(dir, "broken.json");
  writeFileSync(broken, '{\n  "projects": [{"id": "p1", "token": "svc_live_SECRET"}\n  "x": 1\n}');
  const err = await StateDir.open(broken, new Store()).catch((e: Error) => e);
  expect(String(err)).toContain(`state file ${broken}: not valid JSON at line 3, column 3`);
  expect(String(err)).not.toContain("SECRET");
});

test("one process holds a state directory; a lock left by a process that died is taken over; a directory of other files is refused", async () => {
  await openState();
  await expect(StateDir.open(path, new Store())).rejects.toThrow(/in use by this process/);
  await open.pop()!.close();
  const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
  writeFileSync(join(path, "lock"), `${dead} 1\n`);
  await expect(openState()).resolves.toBeDefined();

  writeFileSync(join(dir, "notes.txt"), "not a state");
  await expect(StateDir.open(dir, new Store())).rejects.toThrow(`the state ${dir} is a directory holding other files`);
});
