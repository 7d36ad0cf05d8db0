// A killed `up` (SIGKILL of the pulumi process and its plugins during a deploy wait), then the
// documented recovery: `pulumi cancel`, `pulumi refresh --clear-pending-creates` and `up`. The create
// sent again carries the same Idempotency-Key, so the object the killed run made is adopted: no
// duplicate, no orphan, no 409.
import { emulator, type TestEmulator } from "../support/emulator";
import { waitFor } from "../support/helpers";
import { killAll, processesOf, removeEmptySidecars } from "../support/recovery";
import { expectNoDrift, testStack } from "../support/stack";
import { expectNoDuplicatesOrOrphans, ofKind, platform, stateResources } from "../support/tracking";

jest.setTimeout(180_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 1 } });
});
afterAll(async () => emu?.close());


test("SIGKILL during an up, then cancel, refresh --clear-pending-creates and up: the killed run's service is adopted, no 409", async () => {
  // The program in its own process: the test kills the CLI and everything it started.
  const s = await testStack(emu, "durable", { mode: "service", tag: "crash" }, { process: true });
  const stackName = s.stack.name;
  try {
    const up = s.stack.up();
    up.catch(() => undefined);
    // Kill while the service's first deploy is being waited for (it takes about 12 s): the
    // platform has the service, the state has only a pending create.
    await waitFor(() => (emu.emu.counters.get("GET /v1/deploys/:deployId")?.count ?? 0) > 0, { timeoutMs: 60_000, what: "the provider to wait on the first deploy" });
    const pids = processesOf(stackName);
    expect(pids.length).toBeGreaterThan(0);
    killAll(pids);
    await expect(up).rejects.toThrow();
    // The recovery's first step (docs/resource-behaviour.md): a kill in the file backend's sidecar write leaves the
    // state unreadable until the empty sidecar is gone.
    removeEmptySidecars(s.backendDir);
    const made = platform(emu);
    expect(made.Service).toHaveLength(1);
    expect(ofKind(await stateResources(s), "Service").filter((r) => r.id)).toHaveLength(0);

    // The documented recovery: the killed update still holds the stack's lock.
    await s.stack.cancel();
    await s.stack.refresh({ clearPendingCreates: true });
    await s.stack.up();
    // The service is adopted (same key, same body: the first response), not made again.
    expect(platform(emu)).toEqual(made);
    await expectNoDuplicatesOrOrphans(emu, s);
    const counters = await emu.control("GET", "/counters");
    expect(Object.entries(counters).filter(([, c]: [string, any]) => c.byStatus?.["409"])).toEqual([]);
    await expectNoDrift(s);

    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    // A failure above may leave the killed update's lock behind.
    await s.stack.cancel().catch(() => undefined);
    await s.dispose();
  }
});
