// Bucket through the real Pulumi CLI: an auto-named bucket with CORS rules and a policy comes up
// and previews clean (its first preview looks up nothing it is about to create); CORS rules changed
// and a policy removed out of band are found by refresh and put back by up, keeping the generated
// name; a new region replaces it under a fresh name (the old one deleted first: bucket names are
// unique); its endpoint takes an object through the AWS SDK. A replacement whose old bucket holds
// objects is refused, and doing what the error says (forceDestroy, then up) replaces it; so does
// destroy, which refuses such a bucket until forceDestroy is set. Each error is printed once.
// Nothing is left.
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { expectAllGone, expectAllLive, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, testStack } from "../support/stack";

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
    // the first preview does not look up the bucket it is about to create (getBucketOutput)
    expect(changes(await s.stack.preview())).toEqual({ create: 2 });
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

    // a preview afterwards is empty, with a refresh too
    await expectNoDrift(s);

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

    // a replacement of a bucket that holds objects: deleting it first is refused, nothing else
    // happens, and the error says what to do; doing it replaces the bucket, objects and all
    await s.stack.setConfig("region", { value: "eu-central-1" });
    const stuck = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(stuck?.message).toContain(`bucket ${newName} still holds objects, so it was not deleted`);
    expect(stuck?.message).toContain("set forceDestroy: true and run `pulumi up`");
    expectPrintedOnce(stuck!.message, `bucket ${newName} still holds objects`);
    expect(await emu.leftovers()).toEqual({ buckets: 1, bucketObjects: 1, bucketCorsRules: 2, bucketPolicies: 1 });
    await s.stack.setConfig("forceDestroy", { value: "true" });
    expect(changes(await s.stack.up())).toEqual({ replace: 1 });
    expect(await emu.leftovers()).toEqual({ buckets: 1, bucketCorsRules: 2, bucketPolicies: 1 });
    const current = (await s.stack.outputs()).name.value as string;
    expect(current).not.toBe(newName);
    await s.stack.setConfig("forceDestroy", { value: "false" });
    expect(changes(await s.stack.up())).toEqual({ update: 1 });

    // destroy refuses a bucket holding objects, naming it and the way out; nothing is deleted
    await emu.control("POST", "/storage/objects", { bucket: current, region: "eu-central-1", key: "logo.svg", content: "<svg/>" });
    const refused = await s.stack.destroy().then(() => undefined, (e: Error) => e);
    expect(refused?.message).toContain(`bucket ${current} still holds objects`);
    expect(refused?.message).toContain("set forceDestroy: true and run `pulumi up` (then `pulumi destroy`, if you are destroying)");
    expectPrintedOnce(refused!.message, `bucket ${current} still holds objects`);
    expect(await emu.leftovers()).toEqual({ buckets: 1, bucketObjects: 1, bucketCorsRules: 2, bucketPolicies: 1 });

    // with forceDestroy set (an in-place update), destroy deletes the bucket and its objects
    await s.stack.setConfig("forceDestroy", { value: "true" });
    expect(changes(await s.stack.up())).toEqual({ update: 1 });
    expect((await s.stack.outputs()).name.value).toBe(current);
    const last = await stackResources(s.stack);
    await expectAllLive(emu, last);
    await s.stack.destroy();
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

/**
 * The error once in the CLI's diagnostics, against the bucket, and never again beside the stack
 * (as the provider host's own print of the error and its stack trace would add it).
 */
function expectPrintedOnce(text: string, error: string): void {
  // The CLI's output (repeated in the error's text): its first Diagnostics section.
  const start = text.indexOf("Diagnostics:");
  const diagnostics = text.slice(start, text.indexOf("Resources:", start));
  expect(diagnostics.split(error).length - 1).toBe(1);
  expect(text).not.toMatch(/Error: [^\n]*: Error: /);
}
