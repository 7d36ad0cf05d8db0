// The Project and Environment handlers called directly, as the dynamic provider calls them.
import { makeContext } from "../../provider/config";
import { Environment } from "../../provider/resources/environment";
import type { Context } from "../../provider/resources/framework";
import { UNKNOWN } from "../../provider/resources/framework";
import { Project } from "../../provider/resources/project";
import { inOperation, type OperationScope } from "../../provider/client";
import { handlerSuite, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let ctx: Context;
handlerSuite({}, (e, c) => ((emu = e), (ctx = c)));

test("check names the property and the rule, and lets unknown preview values through", async () => {
  expect(await Project.check!({}, { name: "ok", region: "Not A Region" })).toEqual({
    failures: [{ property: "region", reason: expect.stringContaining("region: must be a region key") }],
  });
  expect(await Project.check!({}, {})).toEqual({ failures: [{ property: "name", reason: "name: is required" }] });
  expect(await Project.check!({}, { name: "ok", colour: "red" })).toMatchObject({ failures: [{ property: "colour" }] });
  expect(await Environment.check!({}, { projectId: UNKNOWN, name: "prod" })).toEqual({ inputs: { projectId: UNKNOWN, name: "prod" } });
});

test("diff: renames update in place, region and workspace replace, environments replace delete-first", async () => {
  const olds = { name: "a", displayName: null, description: null, region: "af-west-1", workspaceId: "w" } as any;
  expect(await Project.diff!("id", olds, { name: "b" })).toMatchObject({ changes: true, replaces: [] });
  expect(await Project.diff!("id", olds, { name: "a" })).toMatchObject({ changes: false });
  expect(await Project.diff!("id", olds, { name: "a", region: "eu-central-1" })).toMatchObject({ changes: true, replaces: ["region"] });
  expect(await Project.diff!("id", olds, { name: "a", description: "set by program" })).toMatchObject({ changes: true, replaces: [] });
  expect(await Environment.diff!("id", { projectId: "p", name: "x" } as any, { projectId: "p", name: "y" })).toEqual({
    changes: true, replaces: ["name"], deleteBeforeReplace: true, detailedDiff: { name: { kind: "update", replace: true } },
  });
});

test("create, read, update, delete; read of a vanished object is empty; delete of one succeeds", async () => {
  const created = await Project.create(ctx, { name: "shop", description: "d" });
  expect(created.outs).toMatchObject({ name: "shop", description: "d", region: "af-west-1", workspaceId: emu.workspaceId });

  const env = await Environment.create(ctx, { projectId: created.id, name: "Prod" });
  expect(env.outs).toMatchObject({ name: "Prod", kind: "PROD", projectId: created.id });

  const updated = await Project.update!(ctx, created.id, created.outs, { name: "shop2" });
  expect(updated.outs).toMatchObject({ name: "shop2", description: null });

  const read = await Project.read!(ctx, created.id, updated.outs);
  expect(read).toMatchObject({ id: created.id, props: { name: "shop2" }, inputs: { name: "shop2" } });

  await Project.delete!(ctx, created.id, updated.outs);
  expect(await Project.read!(ctx, created.id, updated.outs)).toEqual({});
  expect(await Environment.read!(ctx, env.id, env.outs)).toEqual({});
  await expect(Project.delete!(ctx, created.id, updated.outs)).resolves.toBeUndefined();
  await expect(Environment.delete!(ctx, env.id, env.outs)).resolves.toBeUndefined();
  expect(await emu.leftovers()).toEqual({});
});

test("a duplicate environment name is a conflict that names the clash", async () => {
  const p = await Project.create(ctx, { name: "dup" });
  await Environment.create(ctx, { projectId: p.id, name: "staging" });
  await expect(Environment.create(ctx, { projectId: p.id, name: "STAGING" })).rejects.toThrow(/409 Conflict: name: .*already has an environment named 'staging'/);
});

test("the workspace is found from the key when it reaches exactly one, and explained when it reaches several", async () => {
  expect(await ctx.workspaceId()).toBe(emu.workspaceId);
  const account = makeContext({ apiKey: emu.keys.account, baseUrl: emu.baseUrl });
  await expect(Project.create(account, { name: "x" })).rejects.toThrow(/reaches 2 workspaces: .*Set cloudplatform:workspaceId/);
  const mail = makeContext({ apiKey: emu.keys.mail, baseUrl: emu.baseUrl });
  await expect(Project.create(mail, { name: "x" })).rejects.toThrow(/is a mail key/);
  await account.client.close();
});

test("Environment.delete removes that environment alone; its project stays", async () => {
  const p = await Project.create(ctx, { name: "keep" });
  const a = await Environment.create(ctx, { projectId: p.id, name: "a" });
  const b = await Environment.create(ctx, { projectId: p.id, name: "b" });
  await Environment.delete!(ctx, a.id, a.outs);
  const project = await ctx.client.get<any>(`/v1/projects/${p.id}`);
  expect(project.environments.map((e: any) => e.id)).toEqual([b.id]);
  await expect(ctx.client.get(`/v1/environments/${a.id}`)).rejects.toMatchObject({ status: 404 });
});

test("Project: update sends each changed text, clears one left out with null, and read returns them as outputs and inputs", async () => {
  const created = await Project.create(ctx, { name: "shop", displayName: "Shop", description: "d" });
  expect(created.outs).toMatchObject({ displayName: "Shop", description: "d", pausedAt: null });
  expect(typeof created.outs.createdAt).toBe("string");
  expect(typeof created.outs.updatedAt).toBe("string");
  expect(await Project.read!(ctx, created.id, created.outs)).toMatchObject({
    props: { name: "shop", displayName: "Shop", description: "d" },
    inputs: { name: "shop", displayName: "Shop", description: "d" },
  });

  const renamed = await Project.update!(ctx, created.id, created.outs, { name: "shop", displayName: "Shop 2", description: "d" });
  expect(renamed.outs).toMatchObject({ name: "shop", displayName: "Shop 2", description: "d" });
  const rewritten = await Project.update!(ctx, created.id, renamed.outs, { name: "shop", displayName: "Shop 2", description: "e" });
  expect(rewritten.outs).toMatchObject({ displayName: "Shop 2", description: "e" });

  const cleared = await Project.update!(ctx, created.id, rewritten.outs, { name: "shop" });
  expect(cleared.outs).toMatchObject({ displayName: null, description: null });
  const read = await Project.read!(ctx, created.id, cleared.outs);
  expect(read.inputs).toEqual({ name: "shop" });
  expect(read.props).toMatchObject({ displayName: null, description: null });
});

test("Project: a create retried by a later run answers with the project it made, or makes a fresh one once that is gone", async () => {
  const run = () => {
    const scope: OperationScope = { identity: "shop/dev/cloudplatform:index:Project/app" };
    return inOperation(scope, async () => ({ made: await Project.create(ctx, { name: "app" }), scope }));
  };
  const first = await run();
  expect(first.scope.created?.id).toBe(first.made.id);
  const again = await run();
  expect(again.made.id).toBe(first.made.id);
  await Project.delete!(ctx, first.made.id, first.made.outs);
  const fresh = await run();
  expect(fresh.made.id).not.toBe(first.made.id);
  expect(await Project.read!(ctx, fresh.made.id, fresh.made.outs)).toMatchObject({ id: fresh.made.id });
});
