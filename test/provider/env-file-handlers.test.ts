// The EnvVar and SecretFile handlers called directly: create, read (drift and a gone object),
// update, delete of the object alone (the service's other keys and files stay, and the object is
// looked up by its own id afterwards), delete of a gone one, and each diff's replace list.
import { EnvVar } from "../../provider/resources/envVar";
import type { Context } from "../../provider/resources/framework";
import { SecretFile } from "../../provider/resources/secretFile";
import { handlerSuite, type TestEmulator } from "../support/emulator";
import { failure, listPages, plainDiff } from "../support/helpers";

let emu: TestEmulator;
let ctx: Context;
let serviceId: string;
handlerSuite({ settings: { speed: 0 } }, (e, c) => ((emu = e), (ctx = c)));
beforeEach(async () => {
  const project = await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "handlers" });
  const env = await ctx.client.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  serviceId = (await ctx.client.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" })).id;
});

const envVars = () => ctx.client.list<any>(`/v1/services/${serviceId}/env-vars`);
const files = () => ctx.client.list<any>(`/v1/services/${serviceId}/secret-files`);

test("EnvVar: check fills the defaults and names a bad key; diff replaces on service or key, delete first", async () => {
  expect(await EnvVar.check!({}, { serviceId: "s", key: "MODE", value: "a" })).toEqual({
    inputs: { serviceId: "s", key: "MODE", value: "a", scope: "ALL", secret: false },
  });
  const bad = await EnvVar.check!({}, { serviceId: "s", key: "1MODE", value: "a", scope: "LIVE" });
  expect(bad.failures?.map((f) => f.property).sort()).toEqual(["key", "scope"]);
  expect(bad.failures?.find((f) => f.property === "key")?.reason).toContain("must start with a letter or '_'");

  const olds = { serviceId: "s", key: "MODE", value: "a", scope: "ALL", secret: false, pendingRedeploy: false };
  const diff = async (news: object) => plainDiff(await EnvVar.diff!("s/MODE", olds, { ...olds, ...news } as any));
  expect(await diff({})).toEqual({ changes: false, replaces: [], deleteBeforeReplace: true });
  expect(await diff({ value: "b", secret: true })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: true });
  expect(await diff({ scope: "PROD" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: true });
  expect(await diff({ key: "MODE2" })).toEqual({ changes: true, replaces: ["key"], deleteBeforeReplace: true });
  expect(await diff({ serviceId: "t", value: "b" })).toEqual({ changes: true, replaces: ["serviceId"], deleteBeforeReplace: true });
});

test("EnvVar: create, a second declaration refused, read, drift, update, delete of the key alone, delete of a gone one", async () => {
  await ctx.client.patch(`/v1/services/${serviceId}/env-vars`, { envVars: [{ key: "OTHER", value: "kept" }] });
  const inputs = { serviceId, key: "MODE", value: "a", scope: "ALL" as const, secret: false };
  const created = await EnvVar.create(ctx, inputs);
  expect(created.id).toBe(`${serviceId}/MODE`);
  expect(created.outs).toEqual({ ...inputs, pendingRedeploy: expect.any(Boolean) });
  expect((await envVars()).find((v) => v.key === "MODE")).toMatchObject({ value: "a", scope: "ALL", secret: false });

  const twice = await failure(EnvVar.create(ctx, inputs));
  expect(twice.message).toContain(`MODE already exists on service ${serviceId}`);
  expect(twice.message).toContain("pulumi import");

  const read = await EnvVar.read!(ctx, created.id, created.outs);
  expect(read).toEqual({ id: created.id, props: created.outs, inputs });
  // an import knows the id only
  expect((await EnvVar.read!(ctx, created.id, {} as any)).inputs).toEqual(inputs);

  // changed behind the provider's back: read reports the live value
  await ctx.client.patch(`/v1/services/${serviceId}/env-vars`, { envVars: [{ key: "MODE", value: "by hand", scope: "PROD" }] });
  expect((await EnvVar.read!(ctx, created.id, created.outs)).inputs).toEqual({ ...inputs, value: "by hand", scope: "PROD" });

  const updated = await EnvVar.update!(ctx, created.id, created.outs, { ...inputs, value: "b", secret: true });
  expect(updated.outs).toMatchObject({ value: "b", secret: true, scope: "ALL" });
  expect((await envVars()).find((v) => v.key === "MODE")).toMatchObject({ value: "b", scope: "ALL", secret: true });

  await EnvVar.delete!(ctx, created.id, updated.outs);
  expect((await envVars()).map((v) => v.key)).toEqual(["OTHER"]);
  expect(await EnvVar.read!(ctx, created.id, updated.outs)).toEqual({});
  await expect(EnvVar.delete!(ctx, created.id, updated.outs)).resolves.toBeUndefined();

  // the service itself gone: read finds nothing and delete succeeds
  await ctx.client.delete(`/v1/services/${serviceId}`);
  expect(await EnvVar.read!(ctx, created.id, updated.outs)).toEqual({});
  await expect(EnvVar.delete!(ctx, created.id, updated.outs)).resolves.toBeUndefined();
});

test("EnvVar: reads of a service's keys at once walk its list once; a value changed by hand is seen; keys deleted by hand cost one walk more", async () => {
  // Each read listed the service's variables itself: a refresh of N keys made N lists of N.
  const path = `/v1/services/${serviceId}/env-vars`;
  const keys = Array.from({ length: 60 }, (_, i) => `KEY_${i}`);
  await ctx.client.patch(path, { envVars: keys.map((key) => ({ key, value: "a" })) });
  const olds = (key: string) => ({ serviceId, key, value: "a", scope: "ALL", secret: false, pendingRedeploy: false }) as any;
  const get = jest.spyOn(ctx.client, "get");
  const lists = () => listPages(get, path).length;
  try {
    await ctx.client.patch(path, { envVars: [{ key: "KEY_7", value: "by hand" }] });
    const reads = await Promise.all(keys.map((key) => EnvVar.read!(ctx, `${serviceId}/${key}`, olds(key))));
    expect(reads.map((r) => r.inputs?.value)).toEqual(keys.map((key) => (key === "KEY_7" ? "by hand" : "a")));
    expect(lists()).toBe(1);

    get.mockClear();
    for (const key of keys.slice(0, 10)) await ctx.client.request("DELETE", `${path}/${key}`);
    const again = await Promise.all(keys.map((key) => EnvVar.read!(ctx, `${serviceId}/${key}`, olds(key))));
    expect(again.map((r) => r.id)).toEqual(keys.map((key, i) => (i < 10 ? undefined : `${serviceId}/${key}`)));
    expect(lists()).toBe(2);
  } finally {
    get.mockRestore();
  }
});

test("SecretFile: check names a bad path; diff replaces on service or path, delete first", async () => {
  expect(await SecretFile.check!({}, { serviceId: "s", path: "/etc/key.pem", content: "x" })).toEqual({
    inputs: { serviceId: "s", path: "/etc/key.pem", content: "x" },
  });
  const bad = await SecretFile.check!({}, { serviceId: "s", path: "/etc/../key", content: "x" });
  expect(bad.failures).toEqual([{ property: "path", reason: expect.stringContaining("must not contain '..'") }]);

  const olds = { serviceId: "s", path: "/etc/key.pem", content: "x", pendingRedeploy: false };
  const diff = async (news: object) => plainDiff(await SecretFile.diff!("s:/etc/key.pem", olds, { ...olds, ...news } as any));
  expect(await diff({})).toEqual({ changes: false, replaces: [], deleteBeforeReplace: true });
  expect(await diff({ content: "y" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: true });
  expect(await diff({ path: "/etc/other.pem" })).toEqual({ changes: true, replaces: ["path"], deleteBeforeReplace: true });
  expect(await diff({ serviceId: "t" })).toEqual({ changes: true, replaces: ["serviceId"], deleteBeforeReplace: true });
});

test("SecretFile: create, read, drift, update, delete of the file alone, delete of a gone one", async () => {
  await ctx.client.put(`/v1/services/${serviceId}/secret-files`, { path: "/etc/other.pem", content: "kept" });
  const inputs = { serviceId, path: "/etc/app/key.pem", content: "first" };
  const created = await SecretFile.create(ctx, inputs);
  expect(created.id).toBe(`${serviceId}:/etc/app/key.pem`);
  expect(created.outs).toEqual({ ...inputs, pendingRedeploy: expect.any(Boolean) });

  const read = await SecretFile.read!(ctx, created.id, created.outs);
  expect(read).toEqual({ id: created.id, props: created.outs, inputs });

  await ctx.client.put(`/v1/services/${serviceId}/secret-files`, { path: "/etc/app/key.pem", content: "by hand" });
  expect((await SecretFile.read!(ctx, created.id, created.outs)).inputs).toEqual({ ...inputs, content: "by hand" });

  const updated = await SecretFile.update!(ctx, created.id, created.outs, { ...inputs, content: "second" });
  expect(updated.outs).toMatchObject({ content: "second" });
  expect((await files()).find((f) => f.path === "/etc/app/key.pem")).toMatchObject({ content: "second" });

  await SecretFile.delete!(ctx, created.id, updated.outs);
  expect((await files()).map((f) => f.path)).toEqual(["/etc/other.pem"]);
  expect(await SecretFile.read!(ctx, created.id, updated.outs)).toEqual({});
  await expect(SecretFile.delete!(ctx, created.id, updated.outs)).resolves.toBeUndefined();

  await ctx.client.delete(`/v1/services/${serviceId}`);
  expect(await SecretFile.read!(ctx, created.id, updated.outs)).toEqual({});
  await expect(SecretFile.delete!(ctx, created.id, updated.outs)).resolves.toBeUndefined();
});
