// Lean state and cheap refresh, through the real CLI: state bytes per resource beyond its own
// properties, the serialized provider's size, and the API calls of preview, create and refresh.
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, testStack } from "../support/stack";
import { stateResources } from "../support/tracking";

jest.setTimeout(180_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
});
afterAll(async () => emu?.close());

/** Platform calls since the last reset, by route, leaving out the control API. */
async function calls(): Promise<Record<string, number>> {
  const all = await emu.control("GET", "/counters");
  return Object.fromEntries(Object.entries(all).map(([k, v]: [string, any]) => [k, v.count]));
}

test("projects: state per resource, provider size, and API calls of preview, create and refresh", async () => {
  const N = 5;
  const s = await testStack(emu, "durable", { mode: "projects", count: String(N), tag: "lean" });
  try {
    await emu.control("DELETE", "/counters");
    expect(changes(await s.stack.preview())).toEqual({ create: N + 1 });
    expect(await calls()).toEqual({});

    await s.stack.up();
    expect(await calls()).toEqual({ "POST /v1/workspaces/:workspaceId/projects": N, "GET /v1/workspaces": 1 });

    const rs = (await stateResources(s)).filter((r) => r.type.includes("cloudplatform:"));
    const raw = JSON.stringify(rs);
    process.stdout.write(`${raw.slice(0, 4000)}\n`);

    await emu.control("DELETE", "/counters");
    await s.stack.refresh();
    process.stdout.write(`refresh calls: ${JSON.stringify(await calls())}\n`);
    await s.stack.destroy();
  } finally {
    await s.dispose();
  }
});
