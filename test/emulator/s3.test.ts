// S3-compatible buckets through the real AWS SDK v3: a bucket's `endpoint` and a storage access
// key are all a client needs. Objects, ranges, listings, copies, multipart uploads, presigned URLs,
// SigV4 failures, aws-chunked bodies, anonymous reads, CORS and S3's XML errors.
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  DeleteObjectsCommand, GetBucketLocationCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListBucketsCommand,
  ListMultipartUploadsCommand, ListObjectsCommand, ListObjectsV2Command, ListPartsCommand, paginateListObjectsV2, PutObjectCommand,
  S3Client, UploadPartCommand, UploadPartCopyCommand,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import {
  canonicalRequest, EMPTY_SHA256, scopeString, sha256Hex, sign, signingKey, stringToSign, toAmzDate,
} from "../../emulator/s3/sigv4";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

// The SDK warns that its releases after January 2027 will need Node 22; the tests run on Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

let emu: TestEmulator;
let s3: S3Client;
const PRIVATE = "s3-private";
const PUBLIC = "s3-public";
let endpoint: string;
let publicBaseUrl: string;
const bucketsPath = (ws = emu.workspaceId) => `/v1/workspaces/${ws}/buckets`;
const keyOf = (ws = emu.workspaceId) => emu.storageKeys.find((k) => k.workspaceId === ws)!;

function client(o: { secret?: string; accessKeyId?: string; region?: string; ws?: string; maxAttempts?: number } = {}): S3Client {
  const k = keyOf(o.ws);
  return new S3Client({
    endpoint, region: o.region ?? "af-west-1", forcePathStyle: true, maxAttempts: o.maxAttempts,
    credentials: { accessKeyId: o.accessKeyId ?? k.accessKeyId, secretAccessKey: o.secret ?? k.secret },
  });
}

const md5 = (b: Buffer | string) => createHash("md5").update(b).digest("hex");
const xmlField = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  const api = emu.client();
  const priv = await api.create<any>(bucketsPath(), { name: PRIVATE });
  const pub = await api.create<any>(bucketsPath(), { name: PUBLIC, visibility: "PUBLIC_READ" });
  endpoint = priv.endpoint;
  publicBaseUrl = pub.publicBaseUrl;
  s3 = client();
});
afterAll(async () => {
  s3?.destroy();
  await emu?.close();
});

test("the bucket's endpoint, its region and a storage access key are all an S3 client needs", async () => {
  expect(endpoint).toBe(`${emu.baseUrl}/_storage/af-west-1`);
  expect(publicBaseUrl).toBe(`${emu.baseUrl}/_storage/af-west-1/${PUBLIC}`);

  const put = await s3.send(new PutObjectCommand({
    Bucket: PRIVATE, Key: "docs/hello world+1.txt", Body: "hello", ContentType: "text/plain", CacheControl: "max-age=60", Metadata: { owner: "shop" },
  }));
  expect(put.ETag).toBe(`"${md5("hello")}"`);
  const head = await s3.send(new HeadObjectCommand({ Bucket: PRIVATE, Key: "docs/hello world+1.txt" }));
  expect(head).toMatchObject({ ContentLength: 5, ContentType: "text/plain", CacheControl: "max-age=60", Metadata: { owner: "shop" }, ETag: put.ETag });
  const got = await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "docs/hello world+1.txt" }));
  expect(await got.Body!.transformToString()).toBe("hello");
  expect(got.LastModified).toBeInstanceOf(Date);

  // ListBuckets shows the key's workspace's buckets, not another workspace's
  await emu.client(emu.keys.otherWorkspace).create(bucketsPath(emu.otherWorkspaceId), { name: "s3-stranger" });
  const listed = await s3.send(new ListBucketsCommand({}));
  expect(listed.Buckets!.map((b) => b.Name)).toEqual([PRIVATE, PUBLIC]);
  expect(listed.Owner?.ID).toBe(emu.workspaceId);
  expect((await s3.send(new HeadBucketCommand({ Bucket: PRIVATE }))).BucketRegion).toBe("af-west-1");
  expect((await s3.send(new GetBucketLocationCommand({ Bucket: PRIVATE }))).LocationConstraint).toBe("af-west-1");

  const missing = await failure(s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "docs/none" })));
  expect([missing.name, missing.$metadata.httpStatusCode]).toEqual(["NoSuchKey", 404]);
  const noBucket = await failure(s3.send(new GetObjectCommand({ Bucket: "no-such-bucket", Key: "x" })));
  expect([noBucket.name, noBucket.$metadata.httpStatusCode]).toEqual(["NoSuchBucket", 404]);
  const stranger = await failure(s3.send(new GetObjectCommand({ Bucket: "s3-stranger", Key: "x" })));
  expect([stranger.name, stranger.$metadata.httpStatusCode]).toEqual(["AccessDenied", 403]);
  await emu.client(emu.keys.otherWorkspace).delete(`${bucketsPath(emu.otherWorkspaceId)}/s3-stranger`);
});

test("SigV4: a wrong secret, an unknown key, another workspace's key, a wrong region, a tampered body, a skewed clock", async () => {
  const wrong = await failure(client({ secret: "not-the-secret" }).send(new GetObjectCommand({ Bucket: PRIVATE, Key: "docs/hello world+1.txt" })));
  expect([wrong.name, wrong.$metadata.httpStatusCode]).toEqual(["SignatureDoesNotMatch", 403]);
  expect(wrong.message).toContain("does not match the signature you provided");
  const unknown = await failure(client({ accessKeyId: "SKNOTAKEY" }).send(new ListObjectsV2Command({ Bucket: PRIVATE })));
  expect([unknown.name, unknown.$metadata.httpStatusCode]).toEqual(["InvalidAccessKeyId", 403]);
  const other = await failure(client({ ws: emu.otherWorkspaceId }).send(new PutObjectCommand({ Bucket: PRIVATE, Key: "x", Body: "x" })));
  expect([other.name, other.$metadata.httpStatusCode]).toEqual(["AccessDenied", 403]);
  const region = await failure(client({ region: "eu-central-1" }).send(new ListObjectsV2Command({ Bucket: PRIVATE })));
  expect([region.name, region.$metadata.httpStatusCode]).toEqual(["AuthorizationHeaderMalformed", 400]);
  expect(region.message).toContain("the region 'eu-central-1' is wrong; expecting 'af-west-1'");

  // The body changed after signing: x-amz-content-sha256 no longer matches it.
  const tampering = client();
  tampering.middlewareStack.add((next) => async (args: any) => {
    args.request.body = "tampered";
    args.request.headers["content-length"] = "8";
    return next(args);
  }, { step: "deserialize" });
  const mismatch = await failure(tampering.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "t", Body: "original" })));
  expect([mismatch.name, mismatch.$metadata.httpStatusCode]).toEqual(["XAmzContentSHA256Mismatch", 400]);
  const md5Wrong = await failure(s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "t", Body: "abc", ContentMD5: Buffer.alloc(16).toString("base64") })));
  expect([md5Wrong.name, md5Wrong.$metadata.httpStatusCode]).toEqual(["BadDigest", 400]);
  const crcWrong = await failure(s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "t", Body: "abc", ChecksumCRC32: "AAAAAA==" })));
  expect([crcWrong.name, crcWrong.$metadata.httpStatusCode]).toEqual(["BadDigest", 400]);
  expect((await s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "t", Body: "abc", ContentMD5: createHash("md5").update("abc").digest("base64") }))).ETag).toBe(`"${md5("abc")}"`);

  // S3 allows 15 minutes of skew on its own clock: the emulator's. The SDK corrects its clock from
  // the answer's Date header and retries.
  await emu.control("POST", "/time", { advanceMs: 20 * 60_000 });
  try {
    const once = await failure(client({ maxAttempts: 1 }).send(new GetObjectCommand({ Bucket: PRIVATE, Key: "t" })));
    expect([once.name, once.$metadata.httpStatusCode]).toEqual(["RequestTimeTooSkewed", 403]);
    const retrying = client();
    expect((await retrying.send(new HeadObjectCommand({ Bucket: PRIVATE, Key: "t" }))).ContentLength).toBe(3);
    expect(retrying.config.systemClockOffset).toBeGreaterThan(19 * 60_000);
  } finally {
    await emu.control("POST", "/time", { reset: true });
  }
  await s3.send(new DeleteObjectCommand({ Bucket: PRIVATE, Key: "t" }));
});

test("GetObject with Range and conditions; HeadObject; response overrides", async () => {
  const body = Buffer.from(Array.from({ length: 100 }, (_, i) => i));
  const { ETag } = await s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "range.bin", Body: body }));
  const read = async (Range: string) => {
    const r = await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "range.bin", Range }));
    return { range: r.ContentRange, length: r.ContentLength, bytes: Buffer.from(await r.Body!.transformToByteArray()) };
  };
  expect(await read("bytes=10-19")).toEqual({ range: "bytes 10-19/100", length: 10, bytes: body.subarray(10, 20) });
  expect(await read("bytes=95-")).toEqual({ range: "bytes 95-99/100", length: 5, bytes: body.subarray(95) });
  expect(await read("bytes=-3")).toEqual({ range: "bytes 97-99/100", length: 3, bytes: body.subarray(97) });
  expect(await read("bytes=90-500")).toMatchObject({ range: "bytes 90-99/100", length: 10 });
  const beyond = await failure(s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "range.bin", Range: "bytes=100-200" })));
  expect([beyond.name, beyond.$metadata.httpStatusCode]).toEqual(["InvalidRange", 416]);
  const head = await s3.send(new HeadObjectCommand({ Bucket: PRIVATE, Key: "range.bin", Range: "bytes=0-9" }));
  expect([head.ContentLength, head.ContentRange]).toEqual([10, "bytes 0-9/100"]);

  const notModified = await failure(s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "range.bin", IfNoneMatch: ETag })));
  expect(notModified.$metadata.httpStatusCode).toBe(304);
  const failed = await failure(s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "range.bin", IfMatch: '"0000"' })));
  expect([failed.name, failed.$metadata.httpStatusCode]).toEqual(["PreconditionFailed", 412]);
  const since = await failure(s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "range.bin", IfModifiedSince: new Date(Date.now() + 60_000) })));
  expect(since.$metadata.httpStatusCode).toBe(304);
  expect((await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "range.bin", IfMatch: ETag }))).ContentLength).toBe(100);

  const created = await failure(s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "range.bin", Body: "x", IfNoneMatch: "*" })));
  expect([created.name, created.$metadata.httpStatusCode]).toEqual(["PreconditionFailed", 412]);
  const overridden = await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "range.bin", ResponseContentType: "image/png", ResponseContentDisposition: "attachment" }));
  expect([overridden.ContentType, overridden.ContentDisposition]).toEqual(["image/png", "attachment"]);
  await overridden.Body!.transformToByteArray();
  await s3.send(new DeleteObjectCommand({ Bucket: PRIVATE, Key: "range.bin" }));
});

test("ListObjectsV2 pages with prefix, delimiter (CommonPrefixes), max-keys, continuation tokens and start-after", async () => {
  const keys = ["a/1", "a/2", "b/1", "b/2/x", "b/2/y", "c", "d", "e"];
  await Promise.all(keys.map((Key) => s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: `list/${Key}`, Body: Key }))));
  const page = (extra: Record<string, unknown>) =>
    s3.send(new ListObjectsV2Command({ Bucket: PRIVATE, Prefix: "list/", Delimiter: "/", MaxKeys: 2, ...extra }));
  const names = (r: any) => [...(r.CommonPrefixes ?? []).map((p: any) => p.Prefix), ...(r.Contents ?? []).map((c: any) => c.Key)];

  const p1 = await page({});
  expect([names(p1), p1.KeyCount, p1.IsTruncated]).toEqual([["list/a/", "list/b/"], 2, true]);
  const p2 = await page({ ContinuationToken: p1.NextContinuationToken });
  expect([names(p2), p2.IsTruncated]).toEqual([["list/c", "list/d"], true]);
  const p3 = await page({ ContinuationToken: p2.NextContinuationToken });
  expect([names(p3), p3.IsTruncated, p3.NextContinuationToken]).toEqual([["list/e"], false, undefined]);
  expect(names(await page({ StartAfter: "list/c", MaxKeys: 10 }))).toEqual(["list/d", "list/e"]);
  expect(names(await page({ Prefix: "list/b/", MaxKeys: 10 }))).toEqual(["list/b/2/", "list/b/1"]);

  const all: string[] = [];
  for await (const p of paginateListObjectsV2({ client: s3, pageSize: 3 }, { Bucket: PRIVATE, Prefix: "list/" })) {
    all.push(...(p.Contents ?? []).map((c) => c.Key!));
  }
  expect(all).toEqual(keys.map((k) => `list/${k}`));
  const v1 = await s3.send(new ListObjectsCommand({ Bucket: PRIVATE, Prefix: "list/", Marker: "list/b/2/y", MaxKeys: 2 }));
  expect([v1.Contents!.map((c) => c.Key), v1.IsTruncated]).toEqual([["list/c", "list/d"], true]);
  const badToken = await failure(page({ ContinuationToken: "garbage" }));
  expect([badToken.name, badToken.$metadata.httpStatusCode]).toEqual(["InvalidArgument", 400]);

  const deleted = await s3.send(new DeleteObjectsCommand({ Bucket: PRIVATE, Delete: { Objects: [...keys, "never-there"].map((k) => ({ Key: `list/${k}` })) } }));
  expect(deleted.Deleted!.map((d) => d.Key)).toEqual([...keys, "never-there"].map((k) => `list/${k}`));
  expect((await s3.send(new ListObjectsV2Command({ Bucket: PRIVATE, Prefix: "list/" }))).KeyCount).toBe(0);
});

test("CopyObject keeps or replaces metadata; DeleteObject", async () => {
  await s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "copy/src.txt", Body: "source", ContentType: "text/plain", Metadata: { v: "1" } }));
  const kept = await s3.send(new CopyObjectCommand({ Bucket: PUBLIC, Key: "copy/kept.txt", CopySource: `${PRIVATE}/copy/src.txt` }));
  expect(kept.CopyObjectResult?.ETag).toBe(`"${md5("source")}"`);
  expect(await s3.send(new HeadObjectCommand({ Bucket: PUBLIC, Key: "copy/kept.txt" }))).toMatchObject({ ContentType: "text/plain", Metadata: { v: "1" } });
  await s3.send(new CopyObjectCommand({
    Bucket: PRIVATE, Key: "copy/src.txt", CopySource: `/${PRIVATE}/copy/src.txt`, MetadataDirective: "REPLACE", ContentType: "text/markdown", Metadata: { v: "2" },
  }));
  expect(await s3.send(new HeadObjectCommand({ Bucket: PRIVATE, Key: "copy/src.txt" }))).toMatchObject({ ContentType: "text/markdown", Metadata: { v: "2" } });
  const toItself = await failure(s3.send(new CopyObjectCommand({ Bucket: PRIVATE, Key: "copy/src.txt", CopySource: `${PRIVATE}/copy/src.txt` })));
  expect([toItself.name, toItself.$metadata.httpStatusCode]).toEqual(["InvalidRequest", 400]);
  const noSource = await failure(s3.send(new CopyObjectCommand({ Bucket: PRIVATE, Key: "copy/x", CopySource: `${PRIVATE}/copy/none` })));
  expect([noSource.name, noSource.$metadata.httpStatusCode]).toEqual(["NoSuchKey", 404]);
  const unmet = await failure(s3.send(new CopyObjectCommand({ Bucket: PRIVATE, Key: "copy/x", CopySource: `${PRIVATE}/copy/src.txt`, CopySourceIfMatch: '"nope"' })));
  expect([unmet.name, unmet.$metadata.httpStatusCode]).toEqual(["PreconditionFailed", 412]);

  await s3.send(new DeleteObjectCommand({ Bucket: PRIVATE, Key: "copy/src.txt" }));
  await s3.send(new DeleteObjectCommand({ Bucket: PRIVATE, Key: "copy/src.txt" })); // gone already: still 204
  expect((await failure(s3.send(new HeadObjectCommand({ Bucket: PRIVATE, Key: "copy/src.txt" })))).$metadata.httpStatusCode).toBe(404);
});

test("multipart: lib-storage uploads parts over 5 MiB; UploadPartCopy; ListParts, ListMultipartUploads; ETag checks; abort", async () => {
  const big = Buffer.alloc(12 * 1024 * 1024);
  for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
  const partSize = 5.5 * 1024 * 1024;
  const done = await new Upload({ client: s3, params: { Bucket: PRIVATE, Key: "mp/big.bin", Body: big, ContentType: "application/x-test" }, partSize, queueSize: 2 }).done();
  const partMd5s = [0, 1, 2].map((i) => createHash("md5").update(big.subarray(i * partSize, (i + 1) * partSize)).digest());
  expect(done.ETag).toBe(`"${createHash("md5").update(Buffer.concat(partMd5s)).digest("hex")}-3"`);
  const whole = await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "mp/big.bin" }));
  expect([whole.ContentLength, whole.ContentType]).toEqual([big.length, "application/x-test"]);
  expect(Buffer.from(await whole.Body!.transformToByteArray()).equals(big)).toBe(true);
  const second = await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "mp/big.bin", PartNumber: 2 }));
  expect([second.ContentLength, second.PartsCount, second.ContentRange]).toEqual([partSize, 3, `bytes ${partSize}-${2 * partSize - 1}/${big.length}`]);
  await second.Body!.transformToByteArray();

  // UploadPartCopy: parts taken from ranges of an object
  const copy = await s3.send(new CreateMultipartUploadCommand({ Bucket: PRIVATE, Key: "mp/copied" }));
  const half = 6 * 1024 * 1024;
  const ranges = [`bytes=0-${half - 1}`, `bytes=${half}-${big.length - 1}`];
  const copied = await Promise.all(ranges.map((CopySourceRange, i) => s3.send(new UploadPartCopyCommand({
    Bucket: PRIVATE, Key: "mp/copied", UploadId: copy.UploadId, PartNumber: i + 1, CopySource: `${PRIVATE}/mp/big.bin`, CopySourceRange,
  }))));
  await s3.send(new CompleteMultipartUploadCommand({
    Bucket: PRIVATE, Key: "mp/copied", UploadId: copy.UploadId, MultipartUpload: { Parts: copied.map((c, i) => ({ PartNumber: i + 1, ETag: c.CopyPartResult!.ETag })) },
  }));
  const joined = await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "mp/copied" }));
  expect(Buffer.from(await joined.Body!.transformToByteArray()).equals(big)).toBe(true);
  await s3.send(new DeleteObjectCommand({ Bucket: PRIVATE, Key: "mp/copied" }));

  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: PRIVATE, Key: "mp/manual" }));
  const small = await s3.send(new UploadPartCommand({ Bucket: PRIVATE, Key: "mp/manual", UploadId, PartNumber: 1, Body: "first" }));
  const last = await s3.send(new UploadPartCommand({ Bucket: PRIVATE, Key: "mp/manual", UploadId, PartNumber: 2, Body: "second" }));
  const parts = await s3.send(new ListPartsCommand({ Bucket: PRIVATE, Key: "mp/manual", UploadId }));
  expect(parts.Parts!.map((p) => [p.PartNumber, p.Size, p.ETag])).toEqual([[1, 5, small.ETag], [2, 6, last.ETag]]);
  const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: PRIVATE }));
  expect(uploads.Uploads!.map((u) => [u.Key, u.UploadId])).toEqual([["mp/manual", UploadId]]);

  const complete = (Parts: { PartNumber: number; ETag?: string }[]) =>
    failure(s3.send(new CompleteMultipartUploadCommand({ Bucket: PRIVATE, Key: "mp/manual", UploadId, MultipartUpload: { Parts } })));
  const badTag = await complete([{ PartNumber: 1, ETag: small.ETag }, { PartNumber: 2, ETag: '"0123"' }]);
  expect([badTag.name, badTag.$metadata.httpStatusCode]).toEqual(["InvalidPart", 400]);
  const order = await complete([{ PartNumber: 2, ETag: last.ETag }, { PartNumber: 1, ETag: small.ETag }]);
  expect([order.name, order.$metadata.httpStatusCode]).toEqual(["InvalidPartOrder", 400]);
  const tooSmall = await complete([{ PartNumber: 1, ETag: small.ETag }, { PartNumber: 2, ETag: last.ETag }]);
  expect([tooSmall.name, tooSmall.$metadata.httpStatusCode]).toEqual(["EntityTooSmall", 400]);

  await s3.send(new AbortMultipartUploadCommand({ Bucket: PRIVATE, Key: "mp/manual", UploadId }));
  expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: PRIVATE }))).Uploads ?? []).toEqual([]);
  const gone = await failure(s3.send(new UploadPartCommand({ Bucket: PRIVATE, Key: "mp/manual", UploadId, PartNumber: 3, Body: "x" })));
  expect([gone.name, gone.$metadata.httpStatusCode]).toEqual(["NoSuchUpload", 404]);
  await s3.send(new DeleteObjectCommand({ Bucket: PRIVATE, Key: "mp/big.bin" }));
});

test("presigned URLs: GET and PUT with plain fetch; expired on the emulator clock; tampered", async () => {
  const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: PRIVATE, Key: "pre/up.txt" }), { expiresIn: 60 });
  expect(new URL(putUrl).searchParams.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
  expect((await fetch(putUrl, { method: "PUT", body: "presigned body" })).status).toBe(200);
  const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: PRIVATE, Key: "pre/up.txt" }), { expiresIn: 60 });
  expect(await (await fetch(getUrl)).text()).toBe("presigned body");

  const tampered = getUrl.replace("pre/up.txt", "pre/other.txt");
  const wrong = await fetch(tampered);
  expect([wrong.status, xmlField(await wrong.text(), "Code")]).toEqual([403, "SignatureDoesNotMatch"]);

  await emu.control("POST", "/time", { advanceMs: 2 * 60_000 });
  try {
    const expired = await fetch(getUrl);
    const body = await expired.text();
    expect([expired.status, xmlField(body, "Code"), xmlField(body, "Message")]).toEqual([403, "AccessDenied", "Request has expired"]);
  } finally {
    await emu.control("POST", "/time", { reset: true });
  }
  await s3.send(new DeleteObjectCommand({ Bucket: PRIVATE, Key: "pre/up.txt" }));
});

test("anonymous: GET and HEAD of PUBLIC_READ objects at publicBaseUrl; everything else 403 AccessDenied", async () => {
  await s3.send(new PutObjectCommand({ Bucket: PUBLIC, Key: "site/index.html", Body: "<h1>hi</h1>", ContentType: "text/html" }));
  await s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "secret.txt", Body: "secret" }));
  const anon = await fetch(`${publicBaseUrl}/site/index.html`);
  expect([anon.status, anon.headers.get("content-type"), await anon.text()]).toEqual([200, "text/html", "<h1>hi</h1>"]);
  expect((await fetch(`${publicBaseUrl}/site/index.html`, { method: "HEAD" })).headers.get("content-length")).toBe("11");

  const refused = [
    await fetch(`${endpoint}/${PRIVATE}/secret.txt`),
    await fetch(`${endpoint}/${PRIVATE}/secret.txt`, { method: "HEAD" }),
    await fetch(`${publicBaseUrl}/site/index.html`, { method: "PUT", body: "defaced" }),
    await fetch(`${publicBaseUrl}/site/index.html`, { method: "DELETE" }),
    await fetch(`${publicBaseUrl}?list-type=2`),
    await fetch(`${endpoint}/`),
  ];
  expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);
  expect(xmlField(await refused[0].text(), "Code")).toBe("AccessDenied");
  const inOtherRegion = await fetch(`${emu.baseUrl}/_storage/eu-central-1/${PUBLIC}/site/index.html`);
  expect([inOtherRegion.status, inOtherRegion.headers.get("x-amz-bucket-region")]).toEqual([301, "af-west-1"]);
  expect(xmlField(await inOtherRegion.text(), "Code")).toBe("PermanentRedirect");
  await s3.send(new DeleteObjectsCommand({ Bucket: PRIVATE, Delete: { Objects: [{ Key: "secret.txt" }] } }));
});

test("CORS from the bucket's rules: preflights answered or refused, CORS headers on answers", async () => {
  await emu.client().put(`${bucketsPath()}/${PUBLIC}/cors`, [
    { allowedMethods: ["GET", "HEAD"], allowedOrigins: ["https://*.shop.test"], exposeHeaders: ["ETag"] },
    { allowedMethods: ["PUT"], allowedOrigins: ["https://admin.test"], allowedHeaders: ["content-type", "x-amz-*"], maxAgeSeconds: 300 },
  ]);
  const preflight = (origin: string, method: string, headers?: string) =>
    fetch(`${publicBaseUrl}/site/index.html`, { method: "OPTIONS", headers: { origin, "access-control-request-method": method, ...(headers ? { "access-control-request-headers": headers } : {}) } });
  const ok = await preflight("https://admin.test", "PUT", "Content-Type, X-Amz-Date");
  expect(ok.status).toBe(200);
  expect(Object.fromEntries(["allow-origin", "allow-methods", "allow-headers", "max-age", "allow-credentials"].map((h) => [h, ok.headers.get(`access-control-${h}`)]))).toEqual({
    "allow-origin": "https://admin.test", "allow-methods": "PUT", "allow-headers": "content-type, x-amz-date", "max-age": "300", "allow-credentials": "true",
  });
  expect((await preflight("https://admin.test", "PUT", "x-other")).status).toBe(403);
  const denied = await preflight("https://evil.test", "GET");
  const body = await denied.text();
  expect([denied.status, xmlField(body, "Code")]).toEqual([403, "AccessForbidden"]);
  expect(xmlField(body, "Message")).toContain(`no CORS rule of bucket '${PUBLIC}' allows origin https://evil.test with GET`);

  const got = await fetch(`${publicBaseUrl}/site/index.html`, { headers: { origin: "https://www.shop.test" } });
  expect([got.headers.get("access-control-allow-origin"), got.headers.get("access-control-expose-headers")]).toEqual(["https://www.shop.test", "ETag"]);
  expect((await fetch(`${publicBaseUrl}/site/index.html`, { headers: { origin: "https://shop.evil" } })).headers.get("access-control-allow-origin")).toBeNull();
  await emu.client().delete(`${bucketsPath()}/${PUBLIC}/cors`);
});

test("XML error bodies: Code, Message, the resource and the request id S3 clients read", async () => {
  const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: PRIVATE, Key: "no/such key" }), { expiresIn: 60 });
  const res = await fetch(url);
  const body = await res.text();
  expect(res.status).toBe(404);
  expect(res.headers.get("content-type")).toBe("application/xml");
  expect(body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>NoSuchKey<\/Code><Message>The specified key does not exist.<\/Message><Key>no\/such key<\/Key>/);
  expect(xmlField(body, "Resource")).toBe(`/${PRIVATE}/no/such key`);
  expect(xmlField(body, "RequestId")).toBe(res.headers.get("x-amz-request-id"));
  const create = await failure(s3.send(new CreateBucketCommand({ Bucket: "made-by-s3" })));
  expect([create.name, create.$metadata.httpStatusCode]).toEqual(["NotImplemented", 501]);
  expect(create.message).toContain("with the platform API");

  // A method S3 has no operation for is 405 naming it; a bucket POST S3 has but the emulator lacks is 501.
  const patch = await fetch(`${endpoint}/${PRIVATE}`, { method: "PATCH" });
  const patched = await patch.text();
  expect([patch.status, xmlField(patched, "Code"), xmlField(patched, "Method"), xmlField(patched, "ResourceType")]).toEqual([405, "MethodNotAllowed", "PATCH", "BUCKET"]);
  expect(xmlField(patched, "Resource")).toBe(`/${PRIVATE}`);
  const form = await fetch(`${endpoint}/${PRIVATE}`, { method: "POST" });
  const formed = await form.text();
  expect([form.status, xmlField(formed, "Code")]).toEqual([501, "NotImplemented"]);
  expect(xmlField(formed, "Message")).toContain("browser form uploads");
});

test("aws-chunked bodies: unsigned chunks with a checksum trailer (the SDK's streams), signed chunks, signed trailers", async () => {
  await s3.send(new PutObjectCommand({ Bucket: PRIVATE, Key: "chunked/sdk", Body: Readable.from([Buffer.from("hello "), Buffer.from("world")]), ContentLength: 11 }));
  expect(await (await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "chunked/sdk" }))).Body!.transformToString()).toBe("hello world");

  const k = keyOf();
  const put = async (key: string, chunks: Buffer[], o: { trailer?: boolean; breakChunk?: number } = {}) => {
    const url = new URL(`${endpoint}/${PRIVATE}/${key}`);
    const amzDate = toAmzDate(Date.now());
    const scope = { accessKeyId: k.accessKeyId, date: amzDate.slice(0, 8), region: "af-west-1", service: "s3" };
    const payload = o.trailer ? "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER" : "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
    const decoded = chunks.reduce((n, c) => n + c.length, 0);
    const headers: Record<string, string> = {
      host: url.host, "x-amz-date": amzDate, "x-amz-content-sha256": payload, "content-encoding": "aws-chunked",
      "x-amz-decoded-content-length": String(decoded), ...(o.trailer ? { "x-amz-trailer": "x-amz-checksum-sha256" } : {}),
    };
    const signedHeaders = Object.keys(headers).sort();
    const req = { method: "PUT", path: url.pathname, query: [], headers: new Map(Object.entries(headers).map(([h, v]) => [h, [v]])) };
    const key2 = signingKey(k.secret, scope);
    let previous = sign(key2, stringToSign(amzDate, scope, canonicalRequest(req, { signedHeaders, payload }, false)));
    const seed = previous;
    const parts: Buffer[] = [];
    [...chunks, Buffer.alloc(0)].forEach((c, i) => {
      previous = sign(key2, ["AWS4-HMAC-SHA256-PAYLOAD", amzDate, scopeString(scope), previous, EMPTY_SHA256, sha256Hex(c)].join("\n"));
      const sig = i === o.breakChunk ? previous.replace(/^./, (ch) => (ch === "0" ? "1" : "0")) : previous;
      parts.push(Buffer.from(`${c.length.toString(16)};chunk-signature=${sig}\r\n`), c, Buffer.from(c.length ? "\r\n" : ""));
    });
    if (o.trailer) {
      const trailer = `x-amz-checksum-sha256:${createHash("sha256").update(Buffer.concat(chunks)).digest("base64")}`;
      const sig = sign(key2, ["AWS4-HMAC-SHA256-TRAILER", amzDate, scopeString(scope), previous, sha256Hex(`${trailer}\n`)].join("\n"));
      parts.push(Buffer.from(`${trailer}\r\nx-amz-trailer-signature:${sig}\r\n\r\n`));
    } else parts.push(Buffer.from("\r\n"));
    const { host: _host, ...sent } = headers;
    return fetch(url, {
      method: "PUT", body: Buffer.concat(parts),
      headers: { ...sent, authorization: `AWS4-HMAC-SHA256 Credential=${k.accessKeyId}/${scopeString(scope)}, SignedHeaders=${signedHeaders.join(";")}, Signature=${seed}` },
    });
  };
  const chunks = [Buffer.alloc(64 * 1024, "a"), Buffer.alloc(1024, "b")];
  expect((await put("chunked/signed", chunks)).status).toBe(200);
  const stored = await s3.send(new GetObjectCommand({ Bucket: PRIVATE, Key: "chunked/signed" }));
  expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(Buffer.concat(chunks))).toBe(true);
  expect(stored.ContentEncoding).toBeUndefined();
  expect((await put("chunked/trailer", chunks, { trailer: true })).status).toBe(200);
  const broken = await put("chunked/broken", chunks, { breakChunk: 1 });
  expect([broken.status, xmlField(await broken.text(), "Code")]).toEqual([403, "SignatureDoesNotMatch"]);
  expect((await failure(s3.send(new HeadObjectCommand({ Bucket: PRIVATE, Key: "chunked/broken" })))).$metadata.httpStatusCode).toBe(404);
  await s3.send(new DeleteObjectsCommand({ Bucket: PRIVATE, Delete: { Objects: ["sdk", "signed", "trailer"].map((n) => ({ Key: `chunked/${n}` })) } }));
});

test("--rate-limit counts an S3 caller's requests against its access key, though every signature differs", async () => {
  await emu.control("PUT", "/rate-limit", { perMinute: 60, burst: 2 });
  try {
    const c = client({ maxAttempts: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(await c.send(new HeadBucketCommand({ Bucket: PRIVATE })).then(() => 200, (e) => e.$metadata.httpStatusCode));
    }
    expect(statuses).toEqual([200, 200, 429]);
  } finally {
    await emu.control("DELETE", "/rate-limit");
  }
});

test("objects and uploads are rows of the store: --state keeps them, and deleting a bucket with force takes them", async () => {
  const dir = mkdtempSync(join(tmpdir(), "s3-state-"));
  try {
    const first = await emulator({ stateFile: join(dir, "state.json"), settings: { speed: 0 } });
    const k = first.storageKeys.find((x) => x.workspaceId === first.workspaceId)!;
    const b = await first.client().create<any>(bucketsPath(first.workspaceId), { name: "kept-bucket" });
    const c = new S3Client({ endpoint: b.endpoint, region: b.region, forcePathStyle: true, credentials: { accessKeyId: k.accessKeyId, secretAccessKey: k.secret } });
    await c.send(new PutObjectCommand({ Bucket: "kept-bucket", Key: "kept.txt", Body: "still here", Metadata: { a: "1" } }));
    const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket: "kept-bucket", Key: "pending" }));
    await c.send(new UploadPartCommand({ Bucket: "kept-bucket", Key: "pending", UploadId, PartNumber: 1, Body: "part" }));
    c.destroy();
    await first.close();

    const again = await emulator({ stateFile: join(dir, "state.json"), settings: { speed: 0 } });
    try {
      const b2 = (await again.client().list<any>(bucketsPath(again.workspaceId)))[0];
      const c2 = new S3Client({ endpoint: b2.endpoint, region: b2.region, forcePathStyle: true, credentials: { accessKeyId: k.accessKeyId, secretAccessKey: k.secret } });
      const got = await c2.send(new GetObjectCommand({ Bucket: "kept-bucket", Key: "kept.txt" }));
      expect([await got.Body!.transformToString(), got.Metadata]).toEqual(["still here", { a: "1" }]);
      expect((await c2.send(new ListPartsCommand({ Bucket: "kept-bucket", Key: "pending", UploadId }))).Parts).toHaveLength(1);
      c2.destroy();
      expect(await again.leftovers()).toEqual({ buckets: 1, bucketObjects: 1, bucketUploads: 1, bucketUploadParts: 1 });
      await again.client().delete(`${bucketsPath(again.workspaceId)}/kept-bucket`, { query: { force: true } });
      expect(await again.leftovers()).toEqual({});
    } finally {
      await again.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
