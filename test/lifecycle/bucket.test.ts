// Bucket through the real Pulumi CLI: an auto-named bucket with CORS rules and a policy comes up
// and previews clean; CORS rules changed and a policy removed out of band are found by refresh and
// put back by up, keeping the generated name; a new region replaces it under a fresh name (the old
// one deleted first: bucket names are unique); its endpoint takes an object through the AWS SDK,
// and destroy refuses a bucket holding objects until forceDestroy is set; nothing is left.
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { expectAllGone, expectAllLive, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, testStack } from "../support/stack";

// The SDK warns that its releases after January 2027 will need Node 22; the tests run on Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
});
afterAll(async () => emu?.close());

const POLICY = '{"statements":[{"actions":["read"],"effect":"allow","principals":["*"]}],"version":"2026-01-01"}';

test("auto-named bucket: up, clean preview, CORS and policy drift repaired, destroy needs forceDestroy with objects", async () => {
  const s = await testStack(emu, "bucket", { region: "eu-central-1" });
  const api = emu.client();
  try {
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 2 });
    const name = up.outputs.name.value as string;
    expect(name).toMatch(/^assets-[a-z0-9]{7}$/);
    expect(up.outputs.endpoint.value).toBe(`${emu.baseUrl}/_storage/eu-central-1`);
    expect(up.outputs.keyIds.value).toHaveLength(2);
    expect(up.outputs.looked.value).toEqual({ endpoint: up.outputs.endpoint.value, policy: POLICY });
    const path = `/v1/workspaces/${emu.workspaceId}/buckets/${name}`;
    const region = { query: { region: "eu-central-1" } };
    const cors = await api.list<any>(`${path}/cors`, region);
    expect(cors.map((r) => r.allowedOrigins)).toEqual([["https://shop.example.com"], ["https://admin.example.com"]]);
    expect(await api.get(`${path}/policy`, region)).toEqual({ policy: POLICY });

    // a preview afterwards is empty
    expect(changes(await s.stack.preview({ expectNoChanges: true }))).toEqual({});

    // CORS rules changed and the policy removed out of band: refresh finds both, up puts them back, the name stays
    await api.put(`${path}/cors`, { rules: [{ allowedMethods: ["DELETE"], allowedOrigins: ["https://evil.example"] }] }, region);
    await api.delete(`${path}/policy`, region);
    const drift = await s.stack.preview({ refresh: true, diff: true });
    expect(changes(drift)).toEqual({ update: 1 });
    expect(drift.stdout).toContain("https://evil.example");
    expect(drift.stdout).toMatch(/[~+] policy/);
    expect(changes(await s.stack.up({ refresh: true }))).toEqual({ update: 1 });
    expect((await api.list<any>(`${path}/cors`, region)).map((r) => r.allowedOrigins)).toEqual([["https://shop.example.com"], ["https://admin.example.com"]]);
    expect(await api.get(`${path}/policy`, region)).toEqual({ policy: POLICY });
    expect((await s.stack.outputs()).name.value).toBe(name);

    // a new region replaces the bucket: a fresh generated name, the old bucket deleted first
    await s.stack.setConfig("region", { value: "us-east-1" });
    const moved = await s.stack.up();
    expect(changes(moved)).toEqual({ replace: 1 });
    const newName = moved.outputs.name.value as string;
    expect(newName).toMatch(/^assets-[a-z0-9]{7}$/);
    expect(newName).not.toBe(name);
    expect(await api.list(`/v1/workspaces/${emu.workspaceId}/buckets`, region)).toEqual([]);
    expect(await api.get(`/v1/workspaces/${emu.workspaceId}/buckets/${newName}/policy`, { query: { region: "us-east-1" } })).toEqual({ policy: POLICY });

    // the stack's endpoint and region, with a storage access key, are what an S3 client needs
    const key = emu.storageKeys.find((k) => k.accessKeyId === moved.outputs.keyIds.value[0])!;
    const s3 = new S3Client({
      endpoint: moved.outputs.endpoint.value, region: moved.outputs.region.value, forcePathStyle: true,
      credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secret },
    });
    await s3.send(new PutObjectCommand({ Bucket: newName, Key: "logo.svg", Body: "<svg/>", ContentType: "image/svg+xml" }));
    s3.destroy();

    // destroy refuses a bucket holding objects, naming it and the way out; nothing is deleted
    const refused = await s.stack.destroy().then(() => undefined, (e: Error) => e);
    expect(refused?.message).toContain(`bucket ${newName} still holds objects`);
    expect(refused?.message).toContain("set forceDestroy: true and run `pulumi up` before destroying");
    expect(await emu.leftovers()).toEqual({ buckets: 1, bucketObjects: 1, bucketCorsRules: 2, bucketPolicies: 1 });

    // with forceDestroy set (an in-place update), destroy deletes the bucket and its objects
    await s.stack.setConfig("forceDestroy", { value: "true" });
    expect(changes(await s.stack.up())).toEqual({ update: 1 });
    expect((await s.stack.outputs()).name.value).toBe(newName);
    const last = await stackResources(s.stack);
    await expectAllLive(emu, last);
    await s.stack.destroy();
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
