// Project and Environment through the real Pulumi CLI: up, no-change preview, drift found by
// refresh and repaired by up, rename in place, replace, destroy, and no key in state.
import { emulator, type TestEmulator } from "../support/emulator";
import { expectAllGone, expectAllLive, expectOnlyRemoved, stackResources } from "../support/check-destroy";
import { changes, expectNoDrift, testStack } from "../support/stack";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

test("project with two environments: full lifecycle against the emulator", async () => {
  const s = await testStack(emu, "project-env", { name: "shop", description: "v1", region: "af-west-1" }, { keyVia: "config" });
  const api = emu.client();
  try {
    // up creates a project with two environments
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 4 });
    const projectId = up.outputs.projectId.value as string;
    const project = await api.get<any>(`/v1/projects/${projectId}`);
    expect(project).toMatchObject({ name: "shop", description: "v1", defaultRegion: "af-west-1" });
    expect(project.environments.map((e: any) => e.name).sort()).toEqual(["production", "staging"]);

    // a preview afterwards shows no changes
    await expectNoDrift(s);

    // a description changed behind Pulumi's back is found by refresh and repaired by up
    await api.patch(`/v1/projects/${projectId}`, { description: "edited by hand" });
    const drift = await s.stack.preview({ refresh: true, diff: true });
    expect(changes(drift)).toEqual({ update: 1 });
    expect(drift.stdout).toContain("edited by hand");
    expect(changes(await s.stack.up({ refresh: true }))).toEqual({ update: 1 });
    expect((await api.get<any>(`/v1/projects/${projectId}`)).description).toBe("v1");

    // an environment deleted out of band is dropped by refresh and recreated by up
    const staging = project.environments.find((e: any) => e.name === "staging");
    await api.delete(`/v1/environments/${staging.id}`);
    const refreshed = await s.stack.refresh();
    expect(refreshed.summary.resourceChanges).toMatchObject({ delete: 1 });
    expect(changes(await s.stack.up())).toEqual({ create: 1 });
    const envs = (await api.get<any>(`/v1/projects/${projectId}`)).environments;
    expect(envs.map((e: any) => e.name).sort()).toEqual(["production", "staging"]);

    // a rename updates in place: same id
    await s.stack.setConfig("name", { value: "storefront" });
    expect(changes(await s.stack.up())).toEqual({ update: 1 });
    expect((await s.stack.outputs()).projectId.value).toBe(projectId);
    expect((await api.get<any>(`/v1/projects/${projectId}`)).name).toBe("storefront");

    // a replace-only field replaces the project (and its environments move with it)
    await s.stack.setConfig("region", { value: "eu-central-1" });
    const replaced = await s.stack.up();
    expect(changes(replaced)).toEqual({ replace: 3 });
    const newId = replaced.outputs.projectId.value as string;
    expect(newId).not.toBe(projectId);
    expect((await api.get<any>(`/v1/projects/${newId}`)).defaultRegion).toBe("eu-central-1");
    await expect(api.get(`/v1/projects/${projectId}`)).rejects.toMatchObject({ status: 404 });

    // the state holds no plain-text key
    const state = s.rawState();
    expect(state.length).toBeGreaterThan(0);
    expect(state.includes(emu.apiKey)).toBe(false);
    expect(/svc_live_[A-Za-z0-9]{20,}/.test(state)).toBe(false);

    // one environment taken out of the program: that environment alone is deleted
    const before = await stackResources(s.stack);
    await expectAllLive(emu, before);
    await s.stack.setConfig("envs", { value: "production" });
    expect(changes(await s.stack.up())).toEqual({ delete: 1 });
    await expectOnlyRemoved(emu, before, ["::staging"]);

    // destroy deletes each object by its own id, and leaves nothing behind
    const last = await stackResources(s.stack);
    await s.stack.destroy();
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("bad input fails at preview with the property and the rule, and creates nothing", async () => {
  const s = await testStack(emu, "project-env", { name: "-bad name!", envs: "" });
  try {
    const err = await s.stack.preview().then(() => undefined, (e: Error) => e);
    expect(err?.message).toContain("name: must be 1 to 64 characters");
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
