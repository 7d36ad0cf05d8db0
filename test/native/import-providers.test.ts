// What dynamic resources cannot do, through the native plugin and the real CLI: two explicit
// providers for two workspaces, the `import` option with no diff afterwards, `get`, an invoke,
// and `pulumi import` adopting objects made through the API (a project, a DNS record set), with
// program code that compiles.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, pulumiCmd, testStack } from "../support/stack";
import { TSC, TSC_STRICT } from "../support/toolchains";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0.05 } });
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
});
afterAll(async () => emu?.close());

test("explicit providers, the import option, get, invoke and `pulumi import`", async () => {
  const api = emu.client();
  const ws = emu.workspaceId;
  // made through the API, outside any stack
  const project = await api.create<any>(`/v1/workspaces/${ws}/projects`, { name: "legacy-project" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "production" });
  const svc = await api.create<any>(`/v1/environments/${env.id}/services`, {
    name: "legacy", type: "WEB", image: "nginx:1.27", envVars: [{ key: "MODE", value: "production" }],
  });
  const loner = await api.create<any>(`/v1/workspaces/${ws}/projects`, { name: "loner", description: "made by hand" });
  const zone = await api.create<any>(`/v1/workspaces/${ws}/dns-zones`, { name: "legacy.test" });
  const www = await api.create<any>(`/v1/dns-zones/${zone.id}/records`, { name: "www", type: "CNAME", content: "app.example.com" });
  const mx = await api.create<any>(`/v1/dns-zones/${zone.id}/records`, { name: "@", type: "MX", content: "mx.example.com", priority: 10 });
  const kept = await api.create<any>(`/v1/dns-zones/${zone.id}/records`, { name: "@", type: "TXT", content: "not in the set" });

  const s = await testStack(emu, "native-import", {
    keyA: { value: emu.apiKey, secret: true },
    keyB: { value: emu.keys.otherWorkspace, secret: true },
    environmentId: env.id, serviceId: svc.id, projectId: project.id, mode: "production",
  });
  try {
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 5, import: 1 });
    expect(up.outputs.mainWorkspace.value).toBe(ws);
    expect(up.outputs.otherWorkspace.value).toBe(emu.otherWorkspaceId);
    expect(up.outputs.adoptedStatus.value).toBe("ACTIVE");
    expect(up.outputs.existingName.value).toBe("legacy-project");
    expect(up.outputs.lookedUpName.value).toBe("legacy-project");
    // each project lives in its provider's workspace
    const names = async (key: string, workspace: string) =>
      (await emu.client(key).list<any>(`/v1/workspaces/${workspace}/projects`)).map((p) => p.name).sort();
    expect(await names(emu.apiKey, ws)).toEqual(["legacy-project", "loner", "main-app"]);
    expect(await names(emu.keys.otherWorkspace, emu.otherWorkspaceId)).toEqual(["other-app"]);

    // the adopted service shows no diff afterwards, and a change to it is an update in place
    await expectNoDrift(s);
    await s.stack.setConfig("mode", { value: "staging" });
    expect(changes(await s.stack.up())).toEqual({ update: 1 });
    const vars = await api.list<any>(`/v1/services/${svc.id}/env-vars`);
    expect(vars.find((v) => v.key === "MODE")?.value).toBe("staging");

    // `pulumi import` adopts a project made through the API and prints the program code for it,
    // which compiles against the native SDK
    const run = (args: string[]) => pulumiCmd(s, args);
    const codeDir = mkdtempSync(join(ROOT, ".pulumi-state", "import-code-"));
    try {
      const code = join(codeDir, "index.ts");
      const imported = await run(["import", "cloudplatform:index:Project", "loner", loner.id, "--yes", "--stack", s.stack.name, "--protect=false", "--out", code]);
      expect(imported.stdout).toMatch(/= 1 imported/);
      const text = readFileSync(code, "utf8");
      expect(text).toContain('from "pulumi-cloudplatform/native"');
      expect(text).toMatch(/new cloudplatform\.Project\("loner", \{[^}]*description: "made by hand"/s);
      // a record set is imported by the records it takes over: <zoneId>/<recordId>,<recordId>
      const setCode = join(codeDir, "records.ts");
      const set = await run(["import", "cloudplatform:index:DnsRecordSet", "legacy-records", `${zone.id}/${www.id},${mx.id}`, "--yes", "--stack", s.stack.name, "--protect=false", "--out", setCode]);
      expect(set.stdout).toMatch(/= 1 imported/);
      const setText = readFileSync(setCode, "utf8");
      expect(setText).toMatch(/new cloudplatform\.DnsRecordSet\("legacy-records", \{/);
      expect(setText).toMatch(/content: "app\.example\.com",\s+name: "www",\s+ttl: 3600,\s+type: "CNAME"/);
      expect(setText).toMatch(/content: "mx\.example\.com",\s+name: "@",\s+priority: 10,\s+ttl: 3600,\s+type: "MX"/);
      expect(setText).not.toContain("not in the set");
      execFileSync(TSC, [...TSC_STRICT, code, setCode], { cwd: ROOT, stdio: "pipe" });
    } finally {
      rmSync(codeDir, { recursive: true, force: true });
    }
    const state = (await s.stack.exportStack()).deployment as { resources: { urn: string; id?: string; inputs?: Record<string, unknown> }[] };
    const adoptedLoner = state.resources.find((r) => r.urn.endsWith("cloudplatform:index:Project::loner"));
    // the inputs read back are those a program would declare: no diff once it declares them
    expect(adoptedLoner).toMatchObject({ id: loner.id, inputs: { name: "loner", description: "made by hand" } });

    // destroy removes everything the stack manages, the adopted objects included
    const destroyed = await s.stack.destroy();
    expect(destroyed.summary.resourceChanges).toEqual({ delete: 8, discard: 1 });
    await expect(api.get(`/v1/services/${svc.id}`)).rejects.toMatchObject({ status: 404 });
    await expect(api.get(`/v1/projects/${loner.id}`)).rejects.toMatchObject({ status: 404 });
    // the set's records went with it; the zone's other record did not
    expect((await api.list<any>(`/v1/dns-zones/${zone.id}/records`)).filter((r) => r.origin === "USER").map((r) => r.id)).toEqual([kept.id]);
    await api.delete(`/v1/dns-zones/${zone.id}`);
    await api.delete(`/v1/projects/${project.id}`);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
