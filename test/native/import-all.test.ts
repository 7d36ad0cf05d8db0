// Every type imported through the native plugin and the real CLI, from objects made through the
// REST API: by `pulumi import -f` (its generated code compiles, holds no plain-text secret, and run
// as the program it previews clean once the site's path is set), by the `import` option, and by
// `pulumi import` of one resource. Each stack then runs an update, an empty preview and a destroy,
// and CheckDestroy finds every object gone by its own id. State without a resource's workspace (an
// old import) is repaired by refresh, and a destroy from it reaches the object.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";
import { resources } from "../../provider/resources";
import { IMPORTED_PATH } from "../../provider/resources/staticSite";
import { expectAllGone, expectAllLive, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { makeEverything } from "../support/fixtures";
import { changes, expectNoDrift, pulumiCmd, testStack } from "../support/stack";
import { TSC, TSC_STRICT } from "../support/toolchains";

jest.setTimeout(600_000);

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
  dir = mkdtempSync(join(ROOT, ".pulumi-state", "import-all-"));
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

type StateResource = { urn: string; type: string; id?: string; inputs?: Record<string, any>; outputs?: Record<string, any> };

test("pulumi import -f: every type, code that compiles with no plain-text secret, then run as the program: update, empty preview, destroy", async () => {
  const api = emu.client();
  const made = await makeEverything(emu, api, "f", join(dir, "f"));
  const program = join(dir, "f-program");
  mkdirSync(program, { recursive: true });
  writeFileSync(join(program, "Pulumi.yaml"), [
    "name: import-all-f", "runtime:", "  name: nodejs", "  options:", "    typescript: true",
    "plugins:", "  providers:", "    - name: cloudplatform", `      path: ${join(ROOT, "bin")}`, "",
  ].join("\n"));
  writeFileSync(join(program, "package.json"), JSON.stringify({ name: "import-all-f", private: true }));
  writeFileSync(join(program, "index.ts"), "// filled in by pulumi import\n");
  const s = await testStack(emu, program);
  try {
    // bare forms where a type has one: the configured workspace (its default region for a bucket)
    const ids: Record<string, string> = {
      ...made.importIds, MailDomain: made.mailDomainId, Suppression: made.address, Bucket: made.bucket,
    };
    const file = join(dir, "f-import.json");
    writeFileSync(file, JSON.stringify({
      resources: Object.keys(resources).map((kind) => ({ type: resources[kind].token, name: `${kind.charAt(0).toLowerCase()}${kind.slice(1)}`, id: ids[kind] })),
    }));
    const code = join(program, "index.ts");
    const imported = await pulumiCmd(s, ["import", "-f", file, "--yes", "--stack", s.stack.name, "--protect=false", "--out", code]);
    expect(imported.stdout).toMatch(/= 16 imported/);
    const text = readFileSync(code, "utf8");
    // secrets stay secrets in the generated code: each secret value is wrapped in pulumi.secret, the
    // service's variable and file as the lone ones, and shows nowhere else
    const outsideSecret = text.replace(/pulumi\.secret\("(?:[^"\\]|\\.)*"\)/g, "pulumi.secret(...)");
    for (const secret of made.secrets) {
      expect(text).toContain(JSON.stringify(secret));
      expect(outsideSecret).not.toContain(secret.replace(/"/g, '\\"'));
    }
    expect(text).toMatch(/key: "TOKEN",\s+scope: "ALL",\s+secret: true,\s+value: pulumi\.secret\(/);
    expect(text).toMatch(/key: "MODE",\s+scope: "ALL",\s+secret: false,\s+value: "production"/);
    expect(text).not.toMatch(/path: ""/);
    expect(text).toContain(IMPORTED_PATH);
    execFileSync(TSC, [...TSC_STRICT, code], { cwd: ROOT, stdio: "pipe" });
    const state = (await s.stack.exportStack()).deployment.resources as StateResource[];
    const ofType = (kind: string) => state.find((r) => r.type === resources[kind].token)!;
    expect(ofType("Bucket")).toMatchObject({ id: made.bucket, outputs: { workspaceId: emu.workspaceId, region: made.region } });
    expect(ofType("MailDomain")).toMatchObject({ id: made.mailDomainId, outputs: { workspaceId: emu.workspaceId } });
    expect(ofType("DnsRecord").outputs).toMatchObject({ zoneId: made.zoneId, zoneName: made.zone });

    // the generated code is the program: only the site's content is not known until its path is set
    const refused = await s.stack.preview().then(() => undefined, (e: Error) => e);
    expect(refused?.message).toMatch(/path: an imported site's content cannot be read back; set path/);
    writeFileSync(code, text.replace(IMPORTED_PATH, made.sitePath).replace('description: "made by hand"', 'description: "adopted"'));
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ update: 2 });
    expect((await api.get<any>(`/v1/projects/${made.projectId}`)).description).toBe("adopted");
    await expectNoDrift(s);

    const owned = await stackResources(s.stack);
    expect(owned.map((r) => r.kind).sort()).toEqual(Object.keys(resources).filter((k) => !k.endsWith("Verification")).sort());
    await expectAllLive(emu, owned);
    await s.stack.destroy();
    await expectAllGone(emu, owned);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("the import option adopts every type with no change; update, drift by value, repair of state without a workspace, pulumi import, destroy", async () => {
  const api = emu.client();
  const made = await makeEverything(emu, api, "o", join(dir, "o"));
  const importConfig = Object.fromEntries(Object.entries(made.importIds).map(([kind, id]) => [`import${kind}`, id]));
  const s = await testStack(emu, "native-import-all", {
    ...importConfig,
    projectName: "legacy-o", description: "made by hand", projectId: made.projectId, environmentId: made.environmentId,
    serviceId: made.serviceId, otherServiceId: made.otherServiceId, zone: made.zone, zoneId: made.zoneId,
    mailDomainId: made.mailDomainId, address: made.address, bucket: made.bucket, sitePath: made.sitePath,
    customDomainId: made.customDomainId, mode: "production",
    token: { value: made.secrets[0], secret: true }, fileContent: { value: made.secrets[1], secret: true },
    loneValue: { value: made.secrets[2], secret: true }, loneFile: { value: made.secrets[3], secret: true },
  });
  try {
    const up = await s.stack.up();
    // the site's content is deployed from the program's path (it cannot be read back); nothing else changes
    expect(changes(up)).toEqual({ create: 1, import: 16, update: 1 });
    // the import option left in the program does not import again
    await expectNoDrift(s);

    // an update to a plain variable shows its values in the diff; the secret one never shows
    await s.stack.setConfig("mode", { value: "staging" });
    await s.stack.setConfig("description", { value: "adopted" });
    const preview = await s.stack.preview({ diff: true });
    expect(preview.stdout).toMatch(/"production" => "staging"/);
    for (const secret of made.secrets) expect(preview.stdout).not.toContain(secret);
    expect(changes(await s.stack.up())).toEqual({ update: 2 });
    expect((await api.list<any>(`/v1/services/${made.serviceId}/env-vars`)).find((v) => v.key === "MODE")?.value).toBe("staging");
    // drift of a plain variable shows by value in the refresh
    await api.patch(`/v1/services/${made.serviceId}/env-vars`, { envVars: [{ key: "MODE", value: "drifted" }] });
    const drift = await s.stack.preview({ refresh: true, diff: true });
    expect(drift.stdout).toMatch(/"staging" => "drifted"|"drifted" => "staging"/);
    expect(changes(await s.stack.up({ refresh: true }))).toEqual({ update: 1 });
    expect(changes(await s.stack.preview({ expectNoChanges: true }))).toEqual({});

    // state without a workspace, as old imports wrote it: refresh fills it in
    const strip = async () => {
      const exported = await s.stack.exportStack();
      for (const r of exported.deployment.resources as StateResource[]) {
        if (r.type !== resources.Bucket.token && r.type !== resources.MailDomain.token) continue;
        delete r.outputs!.workspaceId;
        delete r.inputs!.workspaceId;
      }
      await s.stack.importStack(exported);
    };
    const workspaces = async () => ((await s.stack.exportStack()).deployment.resources as StateResource[])
      .filter((r) => r.type === resources.Bucket.token || r.type === resources.MailDomain.token).map((r) => r.outputs?.workspaceId);
    await strip();
    expect(await workspaces()).toEqual([undefined, undefined]);
    await s.stack.refresh();
    expect(await workspaces()).toEqual([emu.workspaceId, emu.workspaceId]);
    await strip();

    // `pulumi import` of one more object, by its bare address
    const address = "another-o@example.org";
    await api.post("/v1/suppressions", { address }, { query: { workspaceId: emu.workspaceId } });
    const one = await pulumiCmd(s, ["import", resources.Suppression.token, "another", address, "--yes", "--stack", s.stack.name, "--protect=false"]);
    expect(one.stdout).toMatch(/= 1 imported/);

    const owned = await stackResources(s.stack);
    expect(owned.length).toBe(13 + 1);
    await expectAllLive(emu, owned);
    // the destroy from state without a workspace reaches the bucket and the mail domain
    const destroyed = await s.stack.destroy();
    expect(destroyed.summary.resourceChanges?.delete).toBe(16 + 1 + 1);
    await expectAllGone(emu, owned);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
