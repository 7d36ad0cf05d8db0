// Through the native plugin and the real CLI: customTimeouts on a create ends the deploy wait at
// its limit, naming it, with the service kept in state; and a stack made with the dynamic
// resources moves to the native ones with aliases and no replacement.
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, testStack } from "../support/stack";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  // Deploys at full speed: about 12 s for an image.
  emu = await emulator({ settings: { speed: 1 } });
});
afterAll(async () => emu?.close());

test("customTimeouts.create: the wait ends at about 5 s naming the limit, the service stays in state, up continues it", async () => {
  const s = await testStack(emu, "native-timeout");
  try {
    const started = Date.now();
    const err = await s.stack.up().then(() => undefined, (e: Error) => e);
    const elapsed = Date.now() - started;
    expect(err?.message).toMatch(/web: deploy \S+ was still (QUEUED|BUILDING|DEPLOYING) after 5s \(customTimeouts\); raise customTimeouts/);
    // the up includes the CLI's start and the project and environment; the wait itself is 5 s
    expect(elapsed).toBeLessThan(5_000 + 20_000);
    const state = (await s.stack.exportStack()).deployment as { resources: { urn: string; id?: string; initErrors?: string[] }[] };
    const web = state.resources.find((r) => r.urn.endsWith("cloudplatform:index:Service::web"));
    expect(web?.id).toBeTruthy();
    expect(web?.initErrors?.[0]).toContain("customTimeouts");
    const api = emu.client();
    expect((await api.get<any>(`/v1/services/${web!.id}`)).name).toBe("web");

    // the next up continues the same service (no second one), once its deploy is live: deploys
    // move on the emulator's clock, which the test moves past the deploy rather than waiting
    const deploys = async () => api.list<any>(`/v1/services/${web!.id}/deploys`);
    await s.stack.setConfig("createTimeout", { value: "2m" });
    await emu.control("POST", "/time", { advanceMs: 60_000 });
    expect((await deploys()).map((d) => d.status)).toEqual(["RUNNING"]);
    // a resource kept with init errors is updated by the next up
    const again = await s.stack.up();
    expect(changes(again)).toEqual({ update: 1 });
    expect(again.outputs.webId.value).toBe(web!.id);
    expect(again.outputs.webDeployStatus.value).toBe("RUNNING");
    const envs = await api.list<any>(`/v1/environments/${(await api.get<any>(`/v1/services/${web!.id}`)).environmentId}/services`);
    expect(envs).toHaveLength(1);
    await expectNoDrift(s);

    // an update whose deploy outlasts customTimeouts.update gives up waiting; once that deploy is
    // live, the next up finds the platform already has the image and starts no second deploy
    const before = (await deploys()).length;
    await s.stack.setConfig("image", { value: "nginx:1.28" });
    await s.stack.setConfig("updateTimeout", { value: "3s" });
    const timedOut = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(timedOut?.message).toMatch(/web: deploy \S+ was still \w+ after 3s \(customTimeouts\)/);
    await emu.control("POST", "/time", { advanceMs: 60_000 });
    expect((await deploys()).map((d) => d.status).slice(0, 1)).toEqual(["RUNNING"]);
    const resumed = await s.stack.up();
    expect(changes(resumed)).toEqual({ update: 1 });
    expect((await deploys()).length).toBe(before + 1);
    expect((await api.get<any>(`/v1/services/${web!.id}`)).source.image).toBe("nginx:1.28");
    await expectNoDrift(s);

    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("migration: dynamic resources move to native ones with aliases, no replacement", async () => {
  const s = await testStack(emu, "native-migrate");
  try {
    const first = await s.stack.up();
    expect(changes(first)).toEqual({ create: 3 });
    const before = await s.stack.exportStack();
    expect(JSON.stringify(before)).toContain("pulumi-nodejs:dynamic/cloudplatform:Project");

    await s.stack.setConfig("native", { value: "true" });
    const preview = await s.stack.preview({ diff: true });
    expect(preview.changeSummary.replace ?? 0).toBe(0);
    expect(preview.changeSummary.create ?? 0).toBe(0);
    expect(preview.changeSummary.delete ?? 0).toBe(0);
    const moved = await s.stack.up();
    expect(moved.outputs.projectId.value).toBe(first.outputs.projectId.value);
    expect(moved.outputs.environmentId.value).toBe(first.outputs.environmentId.value);
    const after = JSON.stringify(await s.stack.exportStack());
    expect(after).toContain("cloudplatform:index:Project::app");
    expect(after).not.toContain("pulumi-nodejs:dynamic/cloudplatform:Project");
    await expectNoDrift(s);

    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
