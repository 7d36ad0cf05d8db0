// Advice that works, at the handler level: each error that tells the user what to do is followed,
// and the same operation then succeeds. (Through the CLI: test/lifecycle/advice.test.ts.)
import { makeContext } from "../../provider/config";
import { DnsRecordSet } from "../../provider/resources/dnsRecordSet";
import { EnvVar } from "../../provider/resources/envVar";
import { Project } from "../../provider/resources/project";
import { Service } from "../../provider/resources/service";
import { type Context } from "../../provider/resources/framework";
import { handlerSuite, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
let ctx: Context;
handlerSuite({ settings: { speed: 0 } }, (e, c) => ((emu = e), (ctx = c)));

async function environment(): Promise<string> {
  const project = await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "advice" });
  return (await ctx.client.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" })).id;
}

test("an env var key another declaration owns: removing it there lets the EnvVar take it", async () => {
  const environmentId = await environment();
  const inputs = { environmentId, name: "web", type: "WEB" as const, image: "nginx:1.27", envVars: [{ key: "MODE", value: "a", scope: "ALL" as const, secret: false }] };
  const web = await Service.create(ctx, inputs);
  const mode = { serviceId: web.id, key: "MODE", value: "b" };
  const err = await failure(EnvVar.create(ctx, mode));
  expect(err.message).toContain("remove it from Service.envVars or from the other EnvVar, then run `pulumi up` again");
  await Service.update!(ctx, web.id, web.outs, { ...inputs, envVars: [] });
  expect((await EnvVar.create(ctx, mode)).outs).toMatchObject({ key: "MODE", value: "b" });
});

test("a record of the zone in a set's way: removing it from the zone lets the set create it", async () => {
  const zone = await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/dns-zones`, { name: "advice.test" });
  const theirs = await ctx.client.create<any>(`/v1/dns-zones/${zone.id}/records`, { name: "www", type: "CNAME", content: "elsewhere.example" });
  const set = { zoneId: zone.id, records: [{ name: "www", type: "A", content: "192.0.2.10" }] };
  const err = await failure(DnsRecordSet.create(ctx, set));
  expect(err.message).toContain("remove it from the zone or from the set");
  await ctx.client.delete(`/v1/dns-records/${theirs.id}`);
  expect((await DnsRecordSet.create(ctx, set)).outs.records).toHaveLength(1);
});

test("a key that cannot read deploys: waitForDeploy: false creates the service without waiting", async () => {
  const environmentId = await environment();
  const noDeploys = makeContext({ apiKey: emu.keys.platformOnly, baseUrl: emu.baseUrl });
  const inputs = { environmentId, name: "web", type: "WEB" as const, image: "nginx:1.27" };
  const err = await failure(Service.create(noDeploys, inputs));
  expect(err.message).toContain("use such a key, or set waitForDeploy: false");
  const made = await Service.create(noDeploys, { ...inputs, name: "web-2", waitForDeploy: false });
  expect(made.outs).toMatchObject({ name: "web-2", environmentId });
  await noDeploys.client.close();
});

test("a key that reaches two workspaces: naming one (cloudplatform:workspaceId) lets the create through", async () => {
  const account = makeContext({ apiKey: emu.keys.account, baseUrl: emu.baseUrl });
  const err = await failure(Project.create(account, { name: "x" }));
  expect(err.message).toContain("Set cloudplatform:workspaceId (or CLOUDPLATFORM_WORKSPACE_ID), or give the resource a workspaceId");
  const named = makeContext({ apiKey: emu.keys.account, baseUrl: emu.baseUrl, workspaceId: emu.workspaceId });
  expect((await Project.create(named, { name: "x" })).outs.workspaceId).toBe(emu.workspaceId);
  // ...or the resource names its workspace
  expect((await Project.create(account, { name: "y", workspaceId: emu.workspaceId })).outs.workspaceId).toBe(emu.workspaceId);
  await account.client.close();
  await named.client.close();
});
