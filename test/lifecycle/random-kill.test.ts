// R2: SIGKILL of `pulumi up` (the CLI and its plugins) at a random point of an up of 15 mixed
// resources, for three seeds; then the documented recovery (docs/resource-behaviour.md "Creates that survive
// crashes") converges with no duplicate and no orphan, and destroy leaves nothing.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { emulator, type TestEmulator } from "../support/emulator";
import { killAll, processesOf, recover, removeEmptySidecars } from "../support/recovery";
import { expectNoDrift, testStack } from "../support/stack";
import { expectNoDuplicatesOrOrphans, platform, stateResources } from "../support/tracking";

jest.setTimeout(120_000);

let emu: TestEmulator;
beforeAll(async () => {
  // Deploys take about 0.6 s: the up lasts long enough to be killed anywhere in it.
  emu = await emulator({ settings: { speed: 0.05 } });
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

/** mulberry32: a small seeded PRNG, so a failing seed can be run again. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const made = (emu: TestEmulator) => Object.values(platform(emu)).reduce((n, ids) => n + ids.length, 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The last seed also leaves what a kill inside the file backend's sidecar write leaves (an empty
// `<stack>.json.attrs` beside intact state: seen in about 1 kill in 5 when run in a loop), so the
// recovery's first step is exercised on every run.
// R2_SEEDS=1,2,3 runs other seeds (to chase a failure, or to soak the suite).
const SEEDS = process.env.R2_SEEDS ? process.env.R2_SEEDS.split(",").map(Number) : [11, 2024, 777001];
test.each(SEEDS.map((seed, i) => [seed, i === SEEDS.length - 1] as const))("seed %i: killed at a random point, recovered with no duplicate and no orphan (sidecar emptied: %s)", async (seed, emptySidecar) => {
  const random = prng(seed);
  // The kill point: after k of the 12 platform objects exist, then up to 400 ms more.
  const k = 1 + Math.floor(random() * 11);
  const extraMs = Math.floor(random() * 400);
  // The program in its own process: the kill takes the CLI and everything it started.
  const s = await testStack(emu, "durable", { mode: "mixed", groups: "2", tag: `kill${seed}`, fileContent: { value: "file-secret-2", secret: true } }, { process: true });
  try {
    const up = s.stack.up();
    let finished = false;
    up.then(() => (finished = true), () => (finished = true));
    const t0 = Date.now();
    while (!finished && Date.now() - t0 < 60_000 && made(emu) < k) await sleep(20);
    await sleep(extraMs);
    const killed = finished ? 0 : killAll(processesOf(s.stack.name));
    const outcome = await up.then(() => "finished", () => "killed");
    const before = made(emu);
    // (the state is not read here: a kill in the backend's sidecar write makes it unreadable until
    // the recovery's first step)
    if (emptySidecar) {
      writeFileSync(join(s.backendDir, ".pulumi", "stacks", "durable", `${s.stack.name}.json.attrs`), "");
      await expect(s.stack.exportStack()).rejects.toThrow(/failed to load checkpoint: EOF/);
    }
    const { removed } = await recover(s);
    process.stdout.write(
      `R2 seed ${seed}: kill after ${k} objects + ${extraMs} ms: ${killed} processes killed, up ${outcome}; ` +
        `${before} objects on the platform; empty sidecars removed: ${removed.join(", ") || "none"}\n`,
    );
    // The up this seed picked was cut short (the point is before its last object).
    expect(outcome).toBe("killed");
    if (emptySidecar) expect(removed).toContain(join(".pulumi", "stacks", "durable", `${s.stack.name}.json.attrs`));

    await expectNoDuplicatesOrOrphans(emu, s);
    const rs = await stateResources(s);
    expect(rs.filter((r) => r.type.includes("cloudplatform:"))).toHaveLength(15);
    expect(rs.filter((r) => r.initErrors?.length)).toEqual([]);
    expect(made(emu)).toBe(12);
    const counters = await emu.control("GET", "/counters");
    expect(Object.entries(counters).filter(([, c]: [string, any]) => c.byStatus?.["409"])).toEqual([]);
    await expectNoDrift(s);

    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    removeEmptySidecars(s.backendDir);
    await s.stack.cancel().catch(() => undefined);
    await s.dispose();
  }
});
