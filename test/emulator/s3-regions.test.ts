// A client set for another region than its bucket's, as S3 treats one: the region errors and every
// HeadBucket carry `x-amz-bucket-region` (a HEAD has no body to name it in), and the AWS SDK with
// `followRegionRedirects` downloads from a bucket in another region. The aws CLI's default region
// is held to the same in test/emulator/s3-cli.test.ts.
import {
  GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

// The SDK warns that its releases after January 2027 will need Node 22; the tests run on Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

let emu: TestEmulator;
const BUCKET = "far-reports"; // in af-south-1; the workspace's default region is af-west-1
const clients: S3Client[] = [];

function client(region: string, endpointRegion: string, extra: { followRegionRedirects?: boolean; ws?: string } = {}): S3Client {
  const k = emu.storageKeys.find((x) => x.workspaceId === (extra.ws ?? emu.workspaceId))!;
  const c = new S3Client({
    endpoint: `${emu.baseUrl}/_storage/${endpointRegion}`, region, forcePathStyle: true, maxAttempts: 1,
    followRegionRedirects: extra.followRegionRedirects, credentials: { accessKeyId: k.accessKeyId, secretAccessKey: k.secret },
  });
  clients.push(c);
  return c;
}
const regionOf = (err: S3ServiceException) => [err.$metadata.httpStatusCode, err.$response?.headers["x-amz-bucket-region"]];

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  await emu.client().create(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: BUCKET }, { query: { region: "af-south-1" } });
  await emu.control("POST", "/storage/objects", { bucket: BUCKET, key: "q3.csv", content: "quarter,total\nq3,42\n", region: "af-south-1" });
});
afterAll(async () => {
  for (const c of clients) c.destroy();
  await emu?.close();
});

test("signed for the wrong region at the bucket's endpoint: HEAD, GET, PUT and LIST answer 400 with x-amz-bucket-region", async () => {
  const s3 = client("us-east-1", "af-south-1");
  for (const command of [
    new HeadObjectCommand({ Bucket: BUCKET, Key: "q3.csv" }), new GetObjectCommand({ Bucket: BUCKET, Key: "q3.csv" }),
    new PutObjectCommand({ Bucket: BUCKET, Key: "q4.csv", Body: "x" }), new ListObjectsV2Command({ Bucket: BUCKET }), new HeadBucketCommand({ Bucket: BUCKET }),
  ]) {
    expect([command.constructor.name, ...regionOf(await failure(s3.send(command as any)))]).toEqual([command.constructor.name, 400, "af-south-1"]);
  }
  // A bucket that does not exist has no region to name: the same 400, without the header.
  expect(regionOf(await failure(s3.send(new GetObjectCommand({ Bucket: "no-such-bucket", Key: "x" }))))).toEqual([400, undefined]);
  // A presigned URL signed for the wrong region, too
  const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: "q3.csv" }), { expiresIn: 60 });
  const res = await fetch(url);
  expect([res.status, res.headers.get("x-amz-bucket-region")]).toEqual([400, "af-south-1"]);
});

test("another region's endpoint: 301 PermanentRedirect with x-amz-bucket-region, on GET, HEAD, PUT and LIST", async () => {
  const s3 = client("us-east-1", "us-east-1");
  for (const command of [
    new HeadObjectCommand({ Bucket: BUCKET, Key: "q3.csv" }), new GetObjectCommand({ Bucket: BUCKET, Key: "q3.csv" }),
    new PutObjectCommand({ Bucket: BUCKET, Key: "q4.csv", Body: "x" }), new ListObjectsV2Command({ Bucket: BUCKET }),
  ]) {
    expect([command.constructor.name, ...regionOf(await failure(s3.send(command as any)))]).toEqual([command.constructor.name, 301, "af-south-1"]);
  }
});

test("HeadBucket names the bucket's region whatever it answers: 200, and 403 for another workspace's key", async () => {
  expect((await client("af-south-1", "af-south-1").send(new HeadBucketCommand({ Bucket: BUCKET }))).BucketRegion).toBe("af-south-1");
  const stranger = await failure(client("af-south-1", "af-south-1", { ws: emu.otherWorkspaceId }).send(new HeadBucketCommand({ Bucket: BUCKET })));
  expect(regionOf(stranger)).toEqual([403, "af-south-1"]);
});

test("the AWS SDK set for another region downloads, uploads and lists with followRegionRedirects", async () => {
  // Its own region's endpoint, as an app whose S3 client is made once for its home region.
  const s3 = client("us-east-1", "us-east-1", { followRegionRedirects: true });
  const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: "q3.csv" }));
  expect(await got.Body!.transformToString()).toBe("quarter,total\nq3,42\n");
  expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: "q3.csv" }))).ContentLength).toBe(20);
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: "q4.csv", Body: "quarter,total\nq4,43\n" }));
  expect((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents!.map((o) => o.Key)).toEqual(["q3.csv", "q4.csv"]);
  // The bucket's own endpoint and region need no redirect; a wrong signature is still refused after one.
  const home = client("af-south-1", "af-south-1");
  expect(await (await home.send(new GetObjectCommand({ Bucket: BUCKET, Key: "q4.csv" }))).Body!.transformToString()).toBe("quarter,total\nq4,43\n");
  const k = emu.storageKeys.find((x) => x.workspaceId === emu.workspaceId)!;
  const forged = new S3Client({
    endpoint: `${emu.baseUrl}/_storage/us-east-1`, region: "us-east-1", forcePathStyle: true, maxAttempts: 1, followRegionRedirects: true,
    credentials: { accessKeyId: k.accessKeyId, secretAccessKey: "not-the-secret" },
  });
  clients.push(forged);
  expect((await failure(forged.send(new GetObjectCommand({ Bucket: BUCKET, Key: "q3.csv" })))).name).toBe("SignatureDoesNotMatch");
});
