// The Service and SecretFile handlers called directly, for paths the lifecycle tests do not take:
// cron pausing, a secret file's new content, redeploying or flagging a pending redeploy, and a
// deploy that outlives its timeout.
import { type Context, ResourceInitError } from "../../provider/resources/framework";
import { SecretFile } from "../../provider/resources/secretFile";
import { Service } from "../../provider/resources/service";
import { handlerSuite, type TestEmulator } from "../support/emulator";
import { failure, plainDiff } from "../support/helpers";

let emu: TestEmulator;
let ctx: Context;
let environmentId: string;
handlerSuite({ settings: { speed: 0 } }, (e, c) => {
  emu = e;
  ctx = c;
});
beforeEach(async () => {
  emu.emu.settings.speed = 0;
  const project = await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "handlers" });
  environmentId = (await ctx.client.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" })).id;
});

const live = (id: string) => ctx.client.get<any>(`/v1/services/${id}`);
const deploys = async (id: string) => (await ctx.client.list<any>(`/v1/services/${id}/deploys`)).length;

test("cronSuspended pauses scheduled runs at create and resumes them on update", async () => {
  const inputs = { environmentId, name: "nightly", type: "CRON" as const, image: "alpine:3", schedule: "0 3 * * *", command: "echo hi", cronSuspended: true };
  const created = await Service.create(ctx, inputs);
  expect((await live(created.id)).cron).toMatchObject({ schedule: "0 3 * * *", suspended: true });
  const updated = await Service.update!(ctx, created.id, created.outs, { ...inputs, cronSuspended: false });
  expect((await live(created.id)).cron.suspended).toBe(false);
  expect(updated.outs.cronSuspended).toBe(false);
});

test("a secret file's new content replaces the old one in place", async () => {
  const svc = await Service.create(ctx, { environmentId, name: "web", type: "WEB", image: "nginx:1.27" });
  const file = await SecretFile.create(ctx, { serviceId: svc.id, path: "/etc/app/key.pem", content: "first" });
  const updated = await SecretFile.update!(ctx, file.id, file.outs, { serviceId: svc.id, path: "/etc/app/key.pem", content: "second" });
  const files = await ctx.client.list<any>(`/v1/services/${svc.id}/secret-files`);
  expect(files).toEqual([expect.objectContaining({ path: "/etc/app/key.pem", content: "second" })]);
  expect(updated.outs).toMatchObject({ path: "/etc/app/key.pem" });
  await SecretFile.delete!(ctx, file.id, updated.outs);
  expect(await ctx.client.list(`/v1/services/${svc.id}/secret-files`)).toEqual([]);
});

test("an env var change redeploys with redeployOnChange, and otherwise shows pendingRedeploy", async () => {
  const base = { environmentId, name: "api", type: "WEB" as const, image: "nginx:1.27", envVars: [{ key: "MODE", value: "a" }] };
  const svc = await Service.create(ctx, base);
  expect(await deploys(svc.id)).toBe(1);

  const quiet = await Service.update!(ctx, svc.id, svc.outs, { ...base, envVars: [{ key: "MODE", value: "b" }] });
  expect(quiet.outs.pendingRedeploy).toBe(true);
  expect(await deploys(svc.id)).toBe(1);

  const loud = await Service.update!(ctx, svc.id, quiet.outs, { ...base, envVars: [{ key: "MODE", value: "c" }], redeployOnChange: true });
  expect(await deploys(svc.id)).toBe(2);
  expect(loud.outs).toMatchObject({ pendingRedeploy: false, latestDeployStatus: "RUNNING" });
});

test("a deploy still going when the timeout passes fails the create, keeps the service, and says how to wait longer; the next update waits for it", async () => {
  emu.emu.settings.speed = 0.3; // an image deploys in about 4 s
  const inputs = { environmentId, name: "slow", type: "WEB" as const, image: "nginx:1.27", timeout: "1s" };
  const err = await failure(Service.create(ctx, inputs));
  expect(err).toBeInstanceOf(ResourceInitError);
  expect(err.message).toMatch(/slow: deploy .* was still (QUEUED|BUILDING|DEPLOYING) after 1s; raise `timeout`/);
  expect((await live(err.id)).name).toBe("slow");
  const kept = (err as ResourceInitError).properties as any;
  expect(kept.latestDeployStatus).toMatch(/^(QUEUED|BUILDING|DEPLOYING)$/);
  // The advice followed: nothing else changes, and the update continues the wait to the end.
  const updated = await Service.update!(ctx, err.id, kept, { ...inputs, timeout: "2m" });
  expect(updated.outs).toMatchObject({ latestDeployId: kept.latestDeployId, latestDeployStatus: "RUNNING" });
  expect(await deploys(err.id)).toBe(1);
});

test("diff: what a route changes updates in place; everything else replaces, delete-first when the name is kept", async () => {
  const olds = {
    environmentId: "e", name: "web", type: "WEB", region: "af-west-1", tier: "STARTER", image: "nginx:1", subdomain: "shop",
    envVars: [{ key: "A", value: "1", scope: "ALL", secret: false }],
  } as any;
  const same = { environmentId: "e", name: "web", type: "WEB", image: "nginx:1", envVars: [{ key: "A", value: "1", scope: "ALL", secret: false }] } as any;
  expect(plainDiff(await Service.diff!("id", olds, same))).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  expect(plainDiff(await Service.diff!("id", olds, { ...same, image: "nginx:2", name: "web2" }))).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  expect(plainDiff(await Service.diff!("id", olds, { ...same, envVars: [{ key: "A", value: "2", scope: "ALL", secret: false }] }))).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  expect(plainDiff(await Service.diff!("id", olds, { ...same, type: "STATIC" }))).toEqual({ changes: true, replaces: ["type"], deleteBeforeReplace: true });
  expect(plainDiff(await Service.diff!("id", olds, { ...same, environmentId: "f", name: "other" }))).toEqual({ changes: true, replaces: ["environmentId"], deleteBeforeReplace: false });
  expect(plainDiff(await Service.diff!("id", olds, { ...same, region: "eu-central-1", tier: "PRO", subdomain: "shop2" }))).toEqual({
    changes: true, replaces: ["region", "tier", "subdomain"], deleteBeforeReplace: true,
  });
  const db = { environmentId: "e", name: "db", type: "POSTGRES", dbName: "a", dbUser: "u", dbPassword: "p", connectionEnvName: "DATABASE_URL", injectConnectionUrl: true } as any;
  expect(plainDiff(await Service.diff!("id", db, { ...db, dbName: "b", dbUser: "v", dbPassword: "q", connectionEnvName: "DB", injectConnectionUrl: false }))).toEqual({
    changes: true, replaces: ["dbName", "dbUser", "dbPassword", "connectionEnvName", "injectConnectionUrl"], deleteBeforeReplace: true,
  });
});
