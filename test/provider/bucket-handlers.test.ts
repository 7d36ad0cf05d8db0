// The Bucket handlers called directly, as the dynamic provider calls them, against the emulator.
import { CorsResponse, PolicyResponse, V1StorageBucket } from "../../provider/api/storage";
import { Bucket, type BucketOutputs } from "../../provider/resources/bucket";
import { type Context, UNKNOWN } from "../../provider/resources/framework";
import { listPages, plainDiff } from "../support/helpers";
import { handlerSuite, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let ctx: Context;
handlerSuite({}, (e, c) => ((emu = e), (ctx = c)));

const check = async (news: Record<string, unknown>, olds: Record<string, unknown> = {}) => Bucket.check!(olds as any, news);
const failures = async (news: Record<string, unknown>) => ((await check({ name: "ok-name", ...news })).failures ?? []).map((f) => f.reason);

describe("check", () => {
  test("every rule names its property, also while other inputs are unknown", async () => {
    expect(await failures({ name: "No_Caps" })).toEqual([expect.stringContaining("name: must be 3 to 63 characters: lowercase letters, digits")]);
    expect(await failures({ name: "ab", workspaceId: UNKNOWN })).toEqual([expect.stringContaining("name: must be 3 to 63")]);
    expect(await failures({ visibility: "PUBLIC" })).toEqual(["visibility: must be PRIVATE or PUBLIC_READ"]);
    expect(await failures({ corsRules: [{ allowedMethods: ["PATCH"], allowedOrigins: [] }], region: UNKNOWN })).toEqual([
      "corsRules[0].allowedMethods[0]: must be one of GET, PUT, POST, DELETE, HEAD",
      "corsRules[0].allowedOrigins: must list at least one origin",
    ]);
    expect(await failures({ corsRules: [{ allowedMethods: [], allowedOrigins: ["*"], maxAgeSeconds: -5 }] })).toEqual([
      "corsRules[0].allowedMethods: must list at least one method",
      "corsRules[0].maxAgeSeconds: must not be negative",
    ]);
    expect(await failures({ policy: "{nope", workspaceId: UNKNOWN })).toEqual([expect.stringMatching(/^policy: is not valid JSON/)]);
    expect(await failures({ policy: "[1,2]" })).toEqual(["policy: must be a JSON object (an access-policy document)"]);
    expect(await failures({ policy: 42 })).toEqual(["policy: must be a JSON string or an object"]);
    expect(await failures({ forceDestroy: "yes" })).toEqual(["forceDestroy: must be a boolean"]);
    expect(await failures({ colour: "red" })).toEqual(["unknown property 'colour'"]);
  });

  test("an omitted name is the logical name plus a suffix, generated once and kept", async () => {
    const first = await check({ __logicalName: "My_Assets Bucket" });
    expect(first.inputs).toEqual({ name: expect.stringMatching(/^my-assets-bucket-[a-z0-9]{7}$/), forceDestroy: undefined, __autoNamed: true });
    const again = await check({ __logicalName: "My_Assets Bucket", visibility: "PUBLIC_READ" }, first.inputs as any);
    expect(again.inputs).toMatchObject({ name: first.inputs!.name, visibility: "PUBLIC_READ", __autoNamed: true });
    // a change sure to replace the bucket draws a fresh name, so the new one is made before the old one goes
    const moved = await check({ __logicalName: "My_Assets Bucket", region: "us-east-1" }, { ...first.inputs, region: "af-west-1" } as any);
    expect(moved.inputs!.name).toMatch(/^my-assets-bucket-[a-z0-9]{7}$/);
    expect(moved.inputs!.name).not.toBe(first.inputs!.name);
    // not when the old input was unset (the platform chose), nor when the new value is not known yet
    expect((await check({ __logicalName: "My_Assets Bucket", region: "us-east-1" }, first.inputs as any)).inputs!.name).toBe(first.inputs!.name);
    expect((await check({ __logicalName: "My_Assets Bucket", region: UNKNOWN }, { ...first.inputs, region: "af-west-1" } as any)).inputs!.name).toBe(first.inputs!.name);
    // a name the program once gave is not kept when the program drops it: a new one is generated
    const dropped = await check({ __logicalName: "logs" }, { name: "chosen-name" });
    expect(dropped.inputs!.name).toMatch(/^logs-[a-z0-9]{7}$/);
    const long = (await check({ __logicalName: "x".repeat(100) })).inputs!.name as string;
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9.-]{3,63}$/);
    expect((await check({ __logicalName: "___" })).inputs!.name).toMatch(/^bucket-[a-z0-9]{7}$/);
    expect((await check({ name: "given-name" })).inputs).toEqual({ name: "given-name" });
  });

  test("policy is canonical JSON whatever its key order, spacing or form; CORS rules get one normal form", async () => {
    const a = await check({ name: "pol-a", policy: { version: "1", statements: [{ b: 2, a: 1 }] } });
    const b = await check({ name: "pol-a", policy: '{ "statements": [ {"a":1, "b":2} ],\n "version": "1" }' });
    expect(a.inputs!.policy).toBe('{"statements":[{"a":1,"b":2}],"version":"1"}');
    expect(b.inputs!.policy).toBe(a.inputs!.policy);
    const c = await check({ name: "cors-a", corsRules: [{ allowedMethods: ["GET"], allowedOrigins: ["*"] }] });
    expect(c.inputs!.corsRules).toEqual([{ allowedMethods: ["GET"], allowedOrigins: ["*"], allowedHeaders: null, exposeHeaders: null, maxAgeSeconds: null }]);
  });
});

test("diff: name, region, workspace and visibility replace (delete first when the name stays); CORS, policy, forceDestroy update", async () => {
  const olds = {
    name: "b-1", region: "af-west-1", visibility: "PRIVATE", workspaceId: "w", corsRules: null, policy: null, forceDestroy: false,
    endpoint: "e", publicBaseUrl: null, createdAt: "t",
  } as BucketOutputs;
  const diff = async (news: Record<string, unknown>) => plainDiff(await Bucket.diff!("b-1", olds, { name: "b-1", ...news } as any));
  expect(await diff({})).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  expect(await diff({ region: "af-west-1", visibility: "PRIVATE" })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  expect(await diff({ region: "eu-central-1" })).toEqual({ changes: true, replaces: ["region"], deleteBeforeReplace: true });
  expect(await diff({ visibility: "PUBLIC_READ" })).toEqual({ changes: true, replaces: ["visibility"], deleteBeforeReplace: true });
  expect(await diff({ workspaceId: "w2" })).toEqual({ changes: true, replaces: ["workspaceId"], deleteBeforeReplace: true });
  expect(await diff({ name: "b-2" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
  expect(await diff({ name: UNKNOWN })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
  expect(await diff({ corsRules: [] })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  expect(await diff({ policy: "{}", forceDestroy: true })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
});

test("create, read (drift of CORS and policy), update, delete; objects refuse delete without forceDestroy", async () => {
  const api = emu.client();
  const { inputs } = await check({
    __logicalName: "site-assets",
    corsRules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://a.test"] }],
    policy: { statements: [{ effect: "allow" }] },
  });
  const created = await Bucket.create(ctx, inputs as any);
  const name = inputs!.name as string;
  expect(created.id).toBe(name);
  expect(created.outs).toMatchObject({
    name, region: "af-west-1", visibility: "PRIVATE", workspaceId: emu.workspaceId, forceDestroy: false, publicBaseUrl: null,
    endpoint: `${emu.baseUrl}/_storage/af-west-1`, policy: '{"statements":[{"effect":"allow"}]}', __autoNamed: true,
  });
  const path = `/v1/workspaces/${emu.workspaceId}/buckets/${name}`;
  expect(await api.list(`${path}/cors`)).toHaveLength(1);

  // nothing changed: read returns what create did, and the inputs check needs to keep the name
  const clean = await Bucket.read!(ctx, name, created.outs);
  expect(clean.props).toEqual(created.outs);
  expect(clean.inputs).toMatchObject({ name, __autoNamed: true, corsRules: created.outs.corsRules, policy: created.outs.policy });

  // drift: CORS rules changed and the policy removed out of band
  await api.put(`${path}/cors`, [{ allowedMethods: ["DELETE"], allowedOrigins: ["*"] }]);
  await api.delete(`${path}/policy`);
  const drifted = await Bucket.read!(ctx, name, created.outs);
  expect(drifted.props).toMatchObject({ corsRules: [expect.objectContaining({ allowedMethods: ["DELETE"] })], policy: null });
  expect(drifted.inputs).not.toHaveProperty("policy");
  expect((await Bucket.diff!(name, drifted.props!, inputs as any)).changes).toBe(true);

  // update puts them back
  const updated = await Bucket.update!(ctx, name, drifted.props!, inputs as any);
  expect(updated.outs).toEqual(created.outs);
  expect(await api.list(`${path}/cors`)).toEqual([expect.objectContaining({ allowedMethods: ["GET"], allowedOrigins: ["https://a.test"] })]);
  expect(await api.get(`${path}/policy`)).toEqual({ policy: '{"statements":[{"effect":"allow"}]}' });
  // an empty list removes every rule
  const noCors = await Bucket.update!(ctx, name, updated.outs, { ...(inputs as any), corsRules: [] });
  expect(noCors.outs.corsRules).toEqual([]);
  expect(await api.list(`${path}/cors`)).toEqual([]);

  // delete is refused while objects are there, and nothing is deleted
  await emu.control("POST", "/storage/objects", { bucket: name, key: "logo.png", content: "x" });
  const refused = await Bucket.delete!(ctx, name, noCors.outs).then(() => undefined, (e: Error) => e);
  expect(refused?.message).toContain(`bucket ${name} still holds objects`);
  expect(refused?.message).toContain("set forceDestroy: true and run `pulumi up`");
  expect(await emu.leftovers()).toEqual({ buckets: 1, bucketObjects: 1, bucketPolicies: 1 });

  const forced = await Bucket.update!(ctx, name, noCors.outs, { ...(inputs as any), corsRules: [], forceDestroy: true });
  expect(forced.outs.forceDestroy).toBe(true);
  await Bucket.delete!(ctx, name, forced.outs);
  expect(await emu.leftovers()).toEqual({});
  expect(await Bucket.read!(ctx, name, forced.outs)).toEqual({});
  await expect(Bucket.delete!(ctx, name, forced.outs)).resolves.toBeUndefined();
});

test("a bucket in another region and a PUBLIC_READ one; an unmanaged policy and CORS are not read", async () => {
  const created = await Bucket.create(ctx, { name: "eu-public", region: "eu-central-1", visibility: "PUBLIC_READ" });
  expect(created.outs).toMatchObject({ region: "eu-central-1", publicBaseUrl: `${emu.baseUrl}/_storage/eu-central-1/eu-public`, corsRules: null, policy: null });
  await emu.client().put(`/v1/workspaces/${emu.workspaceId}/buckets/eu-public/policy`, { policy: "{}" }, { query: { region: "eu-central-1" } });
  const read = await Bucket.read!(ctx, "eu-public", created.outs);
  expect(read.props).toEqual(created.outs);
  expect(read.inputs).toEqual({ name: "eu-public", region: "eu-central-1", visibility: "PUBLIC_READ", forceDestroy: false });
  const taken = await Bucket.create(ctx, { name: "eu-public" }).then(() => undefined, (e: Error) => e);
  expect(taken?.message).toContain("already exists in this workspace");
  await Bucket.delete!(ctx, "eu-public", created.outs);
  expect(await emu.leftovers()).toEqual({});
});

test("reads of many buckets at once walk the region's list once, in pages of 100, not once per bucket; a read after them sees what changed", async () => {
  // Found by make bench-scale: with no GET of one bucket, a refresh of 200 buckets made 2,000 list calls.
  const api = emu.client();
  const ws = emu.workspaceId;
  const names = Array.from({ length: 150 }, (_, i) => `many-${String(i).padStart(3, "0")}`);
  for (const name of names) await api.post(`/v1/workspaces/${ws}/buckets`, { name });
  const olds = (name: string) => ({ name, workspaceId: ws, region: "af-west-1", corsRules: null, policy: null, forceDestroy: false }) as unknown as BucketOutputs;
  const get = jest.spyOn(ctx.client, "get");
  try {
    const reads = await Promise.all(names.map((name) => Bucket.read!(ctx, name, olds(name))));
    expect(reads.map((r) => r.id)).toEqual(names);
    expect(listPages(get, `/v1/workspaces/${ws}/buckets`)).toEqual([100, "next page"]);
    // The walk is over: a bucket deleted now reads as gone.
    await api.delete(`/v1/workspaces/${ws}/buckets/${names[0]}`, { query: { region: "af-west-1" } });
    expect(await Bucket.read!(ctx, names[0], olds(names[0]))).toEqual({});
  } finally {
    get.mockRestore();
    for (const name of names.slice(1)) await api.delete(`/v1/workspaces/${ws}/buckets/${name}`, { query: { region: "af-west-1" } });
  }
  expect(await emu.leftovers()).toEqual({});
});

test("getBucket and getStorageAccessKeys find what the API holds, and say clearly when nothing is there", async () => {
  const saved = { ...process.env };
  process.env.CLOUDPLATFORM_API_KEY = emu.apiKey;
  process.env.CLOUDPLATFORM_BASE_URL = emu.baseUrl;
  try {
    const sdk = await import("../../sdk");
    const api = emu.client();
    await api.create(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: "fn-bucket", visibility: "PUBLIC_READ" }, { query: { region: "us-east-1" } });
    await api.put(`/v1/workspaces/${emu.workspaceId}/buckets/fn-bucket/policy`, { policy: '{ "b": 1, "a": 2 }' }, { query: { region: "us-east-1" } });
    expect(await sdk.getBucket({ name: "fn-bucket", region: "us-east-1" })).toEqual({
      id: "fn-bucket", name: "fn-bucket", region: "us-east-1", visibility: "PUBLIC_READ", workspaceId: emu.workspaceId, corsRules: [],
      policy: '{"a":2,"b":1}', endpoint: `${emu.baseUrl}/_storage/us-east-1`, publicBaseUrl: `${emu.baseUrl}/_storage/us-east-1/fn-bucket`,
      createdAt: expect.any(String),
    });
    await expect(sdk.getBucket({ name: "fn-bucket" })).rejects.toThrow(/no bucket named fn-bucket in the workspace's default region/);
    const { keys } = await sdk.getStorageAccessKeys();
    expect(keys.map((k) => k.accessKeyId).sort()).toEqual(emu.storageKeys.filter((k) => k.workspaceId === emu.workspaceId).map((k) => k.accessKeyId).sort());
    expect(JSON.stringify(keys)).not.toContain(emu.storageKeys[0].secret);
  } finally {
    process.env = saved;
  }
});

test("responses the spec does not show are read in every obvious shape", () => {
  const rule = { allowedMethods: ["GET"], allowedOrigins: ["*"], extra: "kept" };
  for (const shape of [{ data: [rule], nextCursor: null }, [rule], { rules: [rule] }, { items: [rule] }]) {
    expect(CorsResponse.parse(shape)).toEqual([rule]);
  }
  expect(CorsResponse.parse(null)).toEqual([]);
  expect(CorsResponse.safeParse({ something: "else" }).success).toBe(false);
  expect(PolicyResponse.parse({ policy: '{"a":1}' })).toBe('{"a":1}');
  expect(PolicyResponse.parse({ policy: null })).toBeNull();
  expect(PolicyResponse.parse({ policy: { a: 1 } })).toBe('{"a":1}');
  expect(PolicyResponse.parse('{"a":1}')).toBe('{"a":1}');
  expect(PolicyResponse.parse({ statements: [] })).toBe('{"statements":[]}');
  expect(PolicyResponse.parse(null)).toBeNull();
  expect(V1StorageBucket.parse({ name: "b-1", region: { key: "af-west-1", label: "Lagos" }, visibility: "ARCHIVE" })).toMatchObject({
    name: "b-1", region: "af-west-1", visibility: "ARCHIVE",
  });
});
