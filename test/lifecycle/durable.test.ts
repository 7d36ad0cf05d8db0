// Nothing duplicated, nothing orphaned, through the real CLI: a create whose response is lost is
// adopted by the next `up`; destroy then up again within 24 h makes fresh objects; an `up` of
// mixed resources under 503, 429 and commit-then-drop faults converges.
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, testStack } from "../support/stack";
import { expectNoDuplicatesOrOrphans, ofKind, platform, stateResources } from "../support/tracking";

jest.setTimeout(180_000);

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
      await expectNoDrift(s);

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

  test("a cross-property rule under a new parent fails at preview, before anything exists", async () => {
    const s = await testStack(emu, "durable", { mode: "bad-schedule", tag: "bad" });
    try {
      // (`pulumi up` previews first, so it stops here too; the Automation API's up skips it.)
      await expect(s.stack.preview()).rejects.toThrow(/schedule: applies to CRON services only, not WEB/);
      expect(await emu.leftovers()).toEqual({});
    } finally {
      await s.dispose();
    }
  });

  test("mixed resources under 20% 503, 10% 429 and 5% commit-then-drop: converge within two ups, no duplicate, no orphan", async () => {
    // 5 groups of 5, a zone and 4 record resources: 30 resources of every common kind.
    const s = await testStack(emu, "durable", { mode: "mixed", groups: "5", tag: "faulty", fileContent: { value: "file-secret-1", secret: true } });
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
      expect(rs.filter((r) => r.type.includes("cloudplatform:"))).toHaveLength(30);
      expect(rs.filter((r) => r.initErrors?.length)).toEqual([]);
      await expectNoDrift(s);
      await s.stack.destroy();
      expect(await emu.leftovers()).toEqual({});
    } finally {
      await s.dispose();
    }
  });
});
