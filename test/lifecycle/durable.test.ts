// Nothing duplicated, nothing orphaned, through the real CLI: a create whose response is lost is
// adopted by the next `up`; destroy then up again within 24 h makes fresh objects; an `up` of
// mixed resources under 503, 429 and commit-then-drop faults converges; a service whose deploy
// wait loses the platform stays in state and the next `up` continues it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, testStack } from "../support/stack";
import type { StackHandle } from "../../scripts/pulumi-env";

jest.setTimeout(240_000);

interface StateResource {
  type: string;
  id?: string;
  outputs?: Record<string, any>;
  initErrors?: string[];
}

async function stateResources(s: StackHandle): Promise<StateResource[]> {
  const exported = await s.stack.exportStack();
  return (exported.deployment.resources ?? []) as StateResource[];
}
const ofKind = (rs: StateResource[], kind: string) => rs.filter((r) => r.type.endsWith(`cloudplatform:${kind}`));

/** Objects on the platform by kind, read from the emulator's own tables (USER records only). */
function platform(emu: TestEmulator) {
  const ids = (table: string, keep: (row: any) => boolean = () => true) =>
    emu.emu.store.table<any>(table).where(keep).map((r: any) => r.id).sort();
  return {
    Project: ids("projects"),
    Environment: ids("environments"),
    Service: ids("services"),
    DnsZone: ids("dnsZones"),
    DnsRecord: ids("dnsRecords", (r) => r.origin === "USER"),
  };
}

/** Every platform object of these kinds is tracked by exactly one resource in state. */
async function expectNoDuplicatesOrOrphans(emu: TestEmulator, s: StackHandle) {
  const rs = await stateResources(s);
  const tracked = (kind: string) => ofKind(rs, kind).map((r) => r.id!).sort();
  const setRecords = ofKind(rs, "DnsRecordSet").flatMap((r) => (r.outputs?.records ?? []).map((x: any) => x.id));
  const live = platform(emu);
  expect(live.Project).toEqual(tracked("Project"));
  expect(live.Environment).toEqual(tracked("Environment"));
  expect(live.Service).toEqual(tracked("Service"));
  expect(live.DnsZone).toEqual(tracked("DnsZone"));
  expect(live.DnsRecord).toEqual([...tracked("DnsRecord"), ...setRecords].sort());
}

describe("against an instant emulator", () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await emulator({ settings: { speed: 0 } });
  });
  afterAll(async () => emu?.close());
  beforeEach(async () => emu.control("POST", "/reset"));

  test("a create whose response is lost is adopted by the next up; destroy then up again makes a fresh object", async () => {
    const s = await testStack(emu, "durable", { mode: "projects", count: "2", tag: "lost" });
    try {
      // Every attempt (the first and its 4 retries) at both creates is committed, then its
      // connection dropped: the up fails with the projects made but not in state.
      await emu.control("POST", "/faults", { kind: "drop", method: "POST", path: `/v1/workspaces/${emu.workspaceId}/projects`, count: 10 });
      await expect(s.stack.up()).rejects.toThrow();
      const afterFailure = platform(emu).Project;
      expect(afterFailure).toHaveLength(2);
      expect(ofKind(await stateResources(s), "Project")).toHaveLength(0);

      // The next up sends the same keys: the platform answers with the objects it made, adopted.
      expect(changes(await s.stack.up())).toEqual({ create: 2 });
      expect(platform(emu).Project).toEqual(afterFailure);
      await expectNoDuplicatesOrOrphans(emu, s);
      expect(changes(await s.stack.preview({ expectNoChanges: true }))).toEqual({});

      // Destroy, then up again within 24 h: the keys replay objects that are gone, which is
      // noticed, and fresh objects are made.
      await s.stack.destroy();
      expect(platform(emu).Project).toEqual([]);
      // (the stack itself is created again too)
      expect(changes(await s.stack.up())).toEqual({ create: 3 });
      const fresh = platform(emu).Project;
      expect(fresh).toHaveLength(2);
      expect(fresh.some((id) => afterFailure.includes(id))).toBe(false);
      await expectNoDuplicatesOrOrphans(emu, s);
      await s.stack.destroy();
      expect(await emu.leftovers()).toEqual({});
    } finally {
      await s.dispose();
    }
  });

  test("mixed resources under 20% 503, 10% 429 and 5% commit-then-drop: converge within two ups, no duplicate, no orphan", async () => {
    const s = await testStack(emu, "durable", { mode: "mixed", tag: "faulty", fileContent: { value: "file-secret-1", secret: true } });
    try {
      await emu.control("POST", "/faults", { kind: "status", status: 503, rate: 0.2 });
      await emu.control("POST", "/faults", { kind: "status", status: 429, rate: 0.1, retryAfterSeconds: 0 });
      await emu.control("POST", "/faults", { kind: "drop", method: "POST", rate: 0.05 });
      let ups = 1;
      try {
        await s.stack.up();
      } catch {
        ups = 2;
        await s.stack.up();
      }
      process.stdout.write(`mixed up under faults converged after ${ups} up(s)\n`);
      await emu.control("DELETE", "/faults");
      await expectNoDuplicatesOrOrphans(emu, s);
      const rs = await stateResources(s);
      expect(rs.filter((r) => r.type.includes("cloudplatform:"))).toHaveLength(15);
      expect(rs.filter((r) => r.initErrors?.length)).toEqual([]);
      expect(changes(await s.stack.preview({ expectNoChanges: true }))).toEqual({});
      await s.stack.destroy();
      expect(await emu.leftovers()).toEqual({});
    } finally {
      await s.dispose();
    }
  });
});

test("connection lost during a deploy wait: the service stays in state, and the next up continues it with no 409", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-durable-"));
  const stateFile = join(dir, "state.json");
  let emu = await emulator({ stateFile, settings: { speed: 1 } });
  const port = Number(new URL(emu.baseUrl).port);
  const s = await testStack(emu, "durable", { mode: "service", tag: "lost-conn" });
  try {
    const up = s.stack.up();
    // Once the service exists (its deploy takes about 12 s), the platform goes away for a while.
    const t0 = Date.now();
    while (emu.emu.store.table("services").all().length === 0) {
      if (Date.now() - t0 > 60_000) throw new Error("the service was never created");
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    await emu.close();
    await expect(up).rejects.toThrow();
    emu = await emulator({ stateFile, port, settings: { speed: 1 } });

    const rs = await stateResources(s);
    const svc = ofKind(rs, "Service");
    expect(svc).toHaveLength(1);
    expect(svc[0].id).toBe(emu.emu.store.table<any>("services").all()[0].id);
    expect(svc[0].initErrors?.length).toBeGreaterThan(0);

    const next = await s.stack.up();
    expect(changes(next)).toEqual({ update: 1 });
    const counters = await emu.control("GET", "/counters");
    expect(Object.entries(counters).filter(([, c]: [string, any]) => c.byStatus?.["409"])).toEqual([]);
    expect(emu.emu.store.table("services").all().length).toBe(1);
    expect(ofKind(await stateResources(s), "Service")[0].initErrors ?? []).toEqual([]);
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
