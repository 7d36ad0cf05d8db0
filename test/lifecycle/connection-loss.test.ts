// A service whose deploy wait loses the platform (the emulator stopped, then restarted with the
// same --state) stays in state as "created but broken", and the next `up` continues it: no 409.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emulator } from "../support/emulator";
import { waitFor } from "../support/helpers";
import { changes, expectNoDrift, testStack } from "../support/stack";
import { ofKind, stateResources } from "../support/tracking";

jest.setTimeout(180_000);

test("connection lost during a deploy wait: the service stays in state, and the next up continues it with no 409", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-durable-"));
  const stateFile = join(dir, "state");
  let emu = await emulator({ stateFile, settings: { speed: 1 } });
  const port = Number(new URL(emu.baseUrl).port);
  const s = await testStack(emu, "durable", { mode: "service", tag: "lost-conn" });
  try {
    const up = s.stack.up();
    // Once the service exists (its deploy takes about 12 s), the platform goes away for a while.
    const first = emu.emu;
    await waitFor(() => (first.counters.get("GET /v1/deploys/:deployId")?.count ?? 0) > 0, { timeoutMs: 60_000, what: "the provider to wait on the deploy" });
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
    await expectNoDrift(s);
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
