// Lean state and cheap refresh, through the real CLI: state bytes per resource beyond its own
// properties, the serialized provider's size, and the API calls of preview, create and refresh.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, testStack } from "../support/stack";
import { serializedProvider, stateOverhead, stateResources } from "../support/tracking";
import { check, diff } from "../../provider/host";

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
    // From a linked checkout (as here) the provider module is outside node_modules and is stored
    // by value: still a thin forwarder, with no handler code. The packaging test checks the
    // installed form, a require by package name.
    for (const r of rs) {
      expect(serializedProvider(r)).toContain('require("pulumi-cloudplatform/provider/host")');
      expect(serializedProvider(r).length).toBeLessThan(2_500);
    }
    process.stdout.write(`linked checkout: state beyond own properties ${stateOverhead(rs[0])} bytes (${stateOverhead(rs[0], true)} with stack traces); serialized provider ${serializedProvider(rs[0]).length} bytes\n`);

    // A refresh reads each resource once.
    await emu.control("DELETE", "/counters");
    expect((await s.stack.refresh()).summary.resourceChanges).toEqual({ same: N + 1 });
    expect(await calls()).toEqual({ "GET /v1/projects/:projectId": N });
    // So does a preview with refresh, and the preview itself calls nothing more.
    await emu.control("DELETE", "/counters");
    expect(changes(await s.stack.preview({ refresh: true, expectNoChanges: true }))).toEqual({});
    expect(await calls()).toEqual({ "GET /v1/projects/:projectId": N });
    await s.stack.destroy();
  } finally {
    await s.dispose();
  }
});

test("the hidden inputs never make a diff: another serialized provider (an upgrade), or no identity (a stack made before it)", async () => {
  const outs = { name: "shop", displayName: null, description: null, region: "af-west-1", workspaceId: "w", paused: false, pausedAt: null, createdAt: null, updatedAt: null };
  const news = { name: "shop", __identity: "app/dev/cloudplatform:Project/p", __provider: "exports.handler = newer;" };
  expect(await diff("Project", "p1", { ...outs, __provider: "exports.handler = older;" }, news)).toMatchObject({ changes: false });
  expect(await diff("Project", "p1", outs, news)).toMatchObject({ changes: false });
  // check keeps the identity for create, and does not count it as an unknown property.
  expect(await check("Project", {}, news)).toEqual({ inputs: { name: "shop", __identity: news.__identity } });
});

test("every resource kind has its provider module, whose export is the provider the SDK uses", () => {
  const { resources } = require("../../provider/resources");
  const { providerModule } = require("../../sdk/provider");
  for (const kind of Object.keys(resources)) {
    expect(existsSync(join(__dirname, "..", "..", "provider", "dynamic", `${kind}.ts`))).toBe(true);
    expect(providerModule(kind)).toBe(require(`../../provider/dynamic/${kind}`));
  }
  // A kind without a module still gets a working (by-value) provider.
  expect(Object.keys(providerModule("NoSuchKindYet")).sort()).toEqual(["check", "configure", "create", "delete", "diff", "read", "update"]);
});
