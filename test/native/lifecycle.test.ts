// The native plugin through the real Pulumi CLI, found through Pulumi.yaml's plugins.providers
// path: a project, an environment, a service with secrets and the mail flow in its parts
// (DnsZone, MailDomain, DnsRecordSet, MailDomainVerification) go through up, no-change preview,
// drift found by refresh and repaired by up, update, replace, refresh --yes and up after which a
// refresh changes nothing, and destroy. Neither the state nor the verbose engine log holds a secret
// in plain text.
import { expectAllGone, expectAllLive, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, refreshRecorder, testStack } from "../support/stack";

jest.setTimeout(300_000);

const SECRETS = { token: "tok-native-5b4a39281706aa", fileContent: "{\"privateKey\":\"pk-native-60718293aa\"}" };
const secretConfig = {
  token: { value: SECRETS.token, secret: true },
  fileContent: { value: SECRETS.fileContent, secret: true },
};

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0.05 } });
  emu.emu.settings.dnsPropagationMs = 300;
  emu.emu.settings.delegations = [];
});
afterAll(async () => emu?.close());

test("native resources: up, empty preview, drift, update, replace, destroy, no plain-text secret", async () => {
  await emu.control("POST", "/dns/delegations", { domain: "native.test" });
  const s = await testStack(emu, "native-app", { name: "shop", description: "v1", ...secretConfig }, { keyVia: "config" });
  const api = emu.client();
  const plain = [emu.apiKey, ...Object.values(SECRETS)];
  const noPlainSecrets = (text: string) => plain.filter((x) => text.includes(x));
  try {
    // up creates everything, waits for the deploy and the verification, runs an invoke
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 9 });
    expect(up.outputs.mailStatus.value).toBe("VERIFIED");
    expect(up.outputs.regions.value).toBeGreaterThan(0);
    expect(up.outputs.webEnvVars.secret).toBe(true);
    // waits are reported against the resource they wait for
    expect(up.stdout).toMatch(/Service \(web\):\n(\s+web: .*\n)*\s+web: deploy \S+ is (QUEUED|BUILDING|DEPLOYING|live after)/);
    const projectId = up.outputs.projectId.value as string;
    const webId = up.outputs.webId.value as string;

    await expectNoDrift(s);

    // drift on the project and on a declared env var is found by refresh and repaired by up
    await api.patch(`/v1/projects/${projectId}`, { description: "edited by hand" });
    await api.patch(`/v1/services/${webId}/env-vars`, { envVars: [{ key: "MODE", value: "hand-made" }] });
    const drift = await s.stack.preview({ refresh: true, diff: true });
    expect(changes(drift)).toEqual({ update: 2 });
    expect(drift.stdout).toContain("edited by hand");
    // the per-property diff names the list item that changed, never its secret value
    expect(drift.stdout).toMatch(/envVars\s*:\s*\[\s*\n\s*~\s*\[\d\]/);
    expect(changes(await s.stack.up({ refresh: true }))).toEqual({ update: 2 });
    expect((await api.get<any>(`/v1/projects/${projectId}`)).description).toBe("v1");
    const vars = Object.fromEntries((await api.list<any>(`/v1/services/${webId}/env-vars`)).map((v) => [v.key, v.value]));
    expect(vars.MODE).toBe("production");

    // an update in place keeps the ids
    await s.stack.setAllConfig({ description: { value: "v2" }, mode: { value: "staging" } });
    const updated = await s.stack.up();
    expect(changes(updated)).toEqual({ update: 2 });
    expect(updated.outputs.projectId.value).toBe(projectId);
    expect(updated.outputs.webId.value).toBe(webId);

    // a replace-only property replaces the project, and its environment and service with it;
    // this up runs with the engine's verbose log
    await s.stack.setConfig("region", { value: "eu-central-1" });
    const replaced = await s.stack.up({ logVerbosity: 9, logToStdErr: true, debug: true });
    expect(changes(replaced)).toEqual({ replace: 3 });
    const newProjectId = replaced.outputs.projectId.value as string;
    expect(newProjectId).not.toBe(projectId);
    expect((await api.get<any>(`/v1/projects/${newProjectId}`)).defaultRegion).toBe("eu-central-1");
    await expect(api.get(`/v1/projects/${projectId}`)).rejects.toMatchObject({ status: 404 });
    expect(replaced.stderr.length).toBeGreaterThan(10_000);
    expect(noPlainSecrets(replaced.stdout)).toEqual([]);
    // At -v=9 the engine dumps every property it marshals, whatever the provider (the dynamic one
    // too); any other line holding a secret (the plugin's log, its errors) would be ours.
    const engineDump = /"msg":"(Marshaling property for RPC|Unmarshaling property for RPC|Planner decided (not )?to)/;
    const leaking = replaced.stderr.split("\n").filter((l) => noPlainSecrets(l).length > 0 && !engineDump.test(l));
    expect(leaking).toEqual([]);

    // after the update and the replacement, refresh --yes and up change nothing, and a refresh
    // then finds no change, not even a resource's inputs rewritten
    const refreshed = refreshRecorder({ standalone: true });
    await s.stack.refresh({ onEvent: refreshed.onEvent });
    expect(refreshed.changes).toEqual([]);
    expect(changes(await s.stack.up())).toEqual({});
    await expectNoDrift(s);

    // neither the state nor the export holds a secret in plain text
    expect(noPlainSecrets(s.rawState())).toEqual([]);
    const exported = JSON.stringify(await s.stack.exportStack());
    expect(exported).toContain("4dabf18193072939515e22adb298388d");

    const last = await stackResources(s.stack);
    await expectAllLive(emu, last);
    const destroyed = await s.stack.destroy();
    expect(destroyed.summary.resourceChanges).toEqual({ delete: 9 });
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
