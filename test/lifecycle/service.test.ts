// Service, EnvVar and SecretFile through the real Pulumi CLI: up waits for RUNNING, drift on a
// declared env var is found and repaired, suspend/resume, cron and image changes in place, an
// EnvVar key rename, a type change that replaces, a failing image, secrets never in plain text,
// and destroy leaves nothing behind.
import { emulator, type TestEmulator } from "../support/emulator";
import type { Stack } from "@pulumi/pulumi/automation";
import { expectAllGone, expectAllLive, expectOnlyRemoved, stackResources } from "../support/check-destroy";
import { changes, expectNoDrift, testStack } from "../support/stack";

jest.setTimeout(600_000);

const SECRETS = {
  token: "tok-9f8e7d6c5b4a39281706",
  fileContent: "{\"privateKey\":\"pk-0a1b2c3d4e5f60718293\"}",
  dbPassword: "pw-5e4d3c2b1a09f8e7d6c5",
};
const secretConfig = {
  token: { value: SECRETS.token, secret: true },
  fileContent: { value: SECRETS.fileContent, secret: true },
  dbPassword: { value: SECRETS.dbPassword, secret: true },
};

let emu: TestEmulator;
beforeAll(async () => {
  // Deploys finish in well under a second.
  emu = await emulator({ settings: { speed: 0.05 } });
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const envVarsOf = async (serviceId: string) =>
  Object.fromEntries((await emu.client().list<any>(`/v1/services/${serviceId}/env-vars`)).map((v) => [v.key, v]));
/** `pulumi stack export` as the CLI prints it (the Automation API's exportStack adds --show-secrets). */
async function stackExport(stack: Stack): Promise<string> {
  const out = await (stack.workspace as unknown as { runPulumiCmd(args: string[]): Promise<{ stdout: string }> })
    .runPulumiCmd(["stack", "export", "--stack", stack.name]);
  return out.stdout;
}
const noPlainSecrets = (state: string) => Object.values(SECRETS).every((s) => !state.includes(s));

test("an app with its database: up waits for RUNNING, drift, suspend/resume, cron, image and key changes, replace, destroy", async () => {
  const s = await testStack(emu, "service-app", { ...secretConfig });
  const api = emu.client();
  try {
    // up creates everything and waits for each first deploy to be RUNNING
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 8 });
    expect(up.outputs.webStatus.value).toBe("RUNNING");
    expect(up.outputs.webUrl.value).toMatch(/^https:\/\//);
    expect(up.outputs.connection.secret).toBe(true);
    const webId = up.outputs.webId.value as string;
    const jobId = up.outputs.jobId.value as string;
    const deploys = (await api.get<any>(`/v1/services/${webId}/deploys`)).data;
    expect(deploys).toHaveLength(1);
    expect(deploys[0].status).toBe("RUNNING");
    // the declared env vars and file reached the first deploy
    const firstLogs = (await api.list<any>(`/v1/deploys/${deploys[0].id}/logs`)).map((l) => l.line).join("\n");
    expect(firstLogs).toMatch(/API_TOKEN.*MODE/);
    expect(firstLogs).toContain("/etc/secrets/app.json");
    const vars = await envVarsOf(webId);
    expect(vars.DATABASE_URL).toMatchObject({ linked: true });
    expect(vars.FEATURE_FLAG).toMatchObject({ value: "on" });

    // a second preview is empty
    await expectNoDrift(s);

    // a declared env var changed out of band is drift; an undeclared key is not
    await api.patch(`/v1/services/${webId}/env-vars`, { envVars: [{ key: "MODE", value: "edited-by-hand" }, { key: "UNMANAGED", value: "keep me" }] });
    const drift = await s.stack.preview({ refresh: true, diff: true });
    expect(changes(drift)).toEqual({ update: 1 });
    expect(changes(await s.stack.up({ refresh: true }))).toEqual({ update: 1 });
    const repaired = await envVarsOf(webId);
    expect(repaired.MODE.value).toBe("production");
    expect(repaired.UNMANAGED.value).toBe("keep me");
    expect(repaired.DATABASE_URL.linked).toBe(true);
    expect((await s.stack.outputs()).pendingRedeploy.value).toBe(true);

    // suspend, a cron schedule change and an EnvVar key rename (old key deleted first) in one up
    await s.stack.setAllConfig({ suspended: { value: "true" }, schedule: { value: "0 * * * *" }, flagKey: { value: "FEATURE_FLAG_V2" } });
    const third = await s.stack.up();
    expect(changes(third)).toEqual({ update: 2, replace: 1 });
    expect(await api.get<any>(`/v1/services/${webId}`)).toMatchObject({ suspension: "USER", health: "STOPPED" });
    expect((await api.get<any>(`/v1/services/${jobId}`)).cron.schedule).toBe("0 * * * *");
    const renamed = await envVarsOf(webId);
    expect(renamed.FEATURE_FLAG).toBeUndefined();
    expect(renamed.FEATURE_FLAG_V2).toMatchObject({ value: "on" });

    // resume and an image change: redeploys in place, same id, waits for RUNNING
    await s.stack.setAllConfig({ suspended: { value: "false" }, image: { value: "nginx:1.28" } });
    const fourth = await s.stack.up();
    expect(changes(fourth)).toEqual({ update: 1 });
    expect(fourth.outputs.webId.value).toBe(webId);
    expect(fourth.outputs.webStatus.value).toBe("RUNNING");
    expect(fourth.outputs.pendingRedeploy.value).toBe(false);
    const live = await api.get<any>(`/v1/services/${webId}`);
    expect(live).toMatchObject({ suspension: "NONE", source: { image: "nginx:1.28" } });
    expect((await api.get<any>(`/v1/services/${webId}/deploys`)).data).toHaveLength(2);

    // a type change replaces (the old one goes first: names are unique), and the EnvVar follows
    await s.stack.setConfig("type", { value: "STATIC" });
    const fifth = await s.stack.up();
    expect(changes(fifth)).toEqual({ replace: 2 });
    const newId = fifth.outputs.webId.value as string;
    expect(newId).not.toBe(webId);
    expect((await api.get<any>(`/v1/services/${newId}`)).type).toBe("STATIC");
    await expect(api.get(`/v1/services/${webId}`)).rejects.toMatchObject({ status: 404 });

    // no secret value, file content or password in plain text anywhere in the state
    const state = s.rawState();
    expect(state.length).toBeGreaterThan(0);
    expect(noPlainSecrets(state)).toBe(true);
    const exported = await stackExport(s.stack);
    expect(exported.includes("cloudplatform:Service::web")).toBe(true);
    expect(noPlainSecrets(exported)).toBe(true);

    // the database, the cron job and its secret file taken out of the program: those alone go
    const before = await stackResources(s.stack);
    await expectAllLive(emu, before);
    await s.stack.setConfig("extras", { value: "false" });
    const trimmed = await s.stack.up();
    expect(changes(trimmed)).toEqual({ delete: 3, ...(changes(trimmed).update ? { update: changes(trimmed).update } : {}) });
    await expectOnlyRemoved(emu, before, ["::db", "::job", "::creds"]);

    // destroy deletes each object by its own id, and leaves nothing behind
    const last = await stackResources(s.stack);
    await s.stack.destroy();
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("a failing image makes up fail with IMAGE_REJECTED and the log lines, keeps the service in state, and destroys cleanly", async () => {
  const s = await testStack(emu, "service-app", { ...secretConfig, extras: "false", image: "ghcr.io/acme/does-not-exist:1" });
  try {
    const err = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(err).toBeDefined();
    const message = err!.message;
    expect(message).toContain("IMAGE_REJECTED");
    expect(message).toContain("last log lines");
    expect(message).toContain("manifest unknown");
    expect(noPlainSecrets(message)).toBe(true);
    // the service exists and is in state, so the next up updates it instead of making a second one
    const state = s.rawState();
    expect(state.includes("cloudplatform:Service::web")).toBe(true);
    expect(state.includes("IMAGE_REJECTED")).toBe(true);
    expect(noPlainSecrets(state)).toBe(true);

    await s.stack.setConfig("image", { value: "nginx:1.27" });
    const fixed = await s.stack.up();
    // the service is updated in place; the EnvVar that waited on it is created now
    expect(changes(fixed)).toEqual({ update: 1, create: 1 });
    expect(fixed.outputs.webStatus.value).toBe("RUNNING");

    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
