// Object bodies live in files under the state directory, not in memory or the journal: a large
// upload grows the journal by well under 1 MB; bodies survive a restart with --state and are
// read back (ranges included) from their files, 0600 in a 0700 directory; deleting an object, a
// bucket or everything (reset) removes the files; bodies an earlier release kept in the rows move
// to files at start; a 200 MiB upload grows the emulator's RSS by far
// less than its size; a SIGKILL in the middle of an upload leaves no half object, and the next
// start removes the partial file.
import { CompleteMultipartUploadCommand, CreateMultipartUploadCommand, GetObjectCommand, PutObjectCommand, S3Client, UploadPartCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { DASHBOARD_PREFIX } from "../../emulator/dashboard/routes";
import { emulator, type TestEmulator } from "../support/emulator";

jest.setTimeout(180_000);

const CLI = process.env.CLOUDPLATFORM_EMULATOR_CLI ?? join(__dirname, "../../dist/emulator/cli.js");
const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
const MiB = 1024 * 1024;

let dir: string;
const procs: ChildProcess[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "s3-disk-"));
});
afterAll(() => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Bytes of the journal and snapshot files: what the state holds besides the bodies. */
const journalBytes = (state: string) =>
  readdirSync(state).filter((f) => f.endsWith(".jsonl")).reduce((n, f) => n + statSync(join(state, f)).size, 0);
const bodyFiles = (state: string) => readdirSync(join(state, "objects")).filter((f) => f !== "tmp");

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function s3Of(emu: TestEmulator, bucket: string): Promise<S3Client> {
  const b = await emu.client().create<any>(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: bucket });
  const k = emu.storageKeys.find((x) => x.workspaceId === emu.workspaceId)!;
  return new S3Client({ endpoint: b.endpoint, region: b.region, forcePathStyle: true, credentials: { accessKeyId: k.accessKeyId, secretAccessKey: k.secret } });
}

test("a large upload grows the journal by under 1 MB; bodies are 0600 files that survive a restart and go with their objects", async () => {
  const state = join(dir, "kept");
  const first = await emulator({ stateFile: state, settings: { speed: 0 } });
  const s3 = await s3Of(first, "disk-bucket");
  const big = randomBytes(24 * MiB);
  const before = journalBytes(state);
  await s3.send(new PutObjectCommand({ Bucket: "disk-bucket", Key: "big.bin", Body: big }));
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "disk-bucket", Key: "parts.bin" }));
  const parts = [big.subarray(0, 6 * MiB), big.subarray(6 * MiB, 7 * MiB)];
  const etags = [];
  for (const [i, Body] of parts.entries()) etags.push((await s3.send(new UploadPartCommand({ Bucket: "disk-bucket", Key: "parts.bin", UploadId, PartNumber: i + 1, Body }))).ETag);
  await s3.send(new CompleteMultipartUploadCommand({
    Bucket: "disk-bucket", Key: "parts.bin", UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
  }));
  first.emu.save();
  expect(journalBytes(state) - before).toBeLessThan(1_000_000);
  // Two bodies, once the parts' files are gone; files 0600 in a 0700 directory.
  const files = await until("the parts' files to go", () => bodyFiles(state).length === 2 && bodyFiles(state));
  expect(files.map((f) => statSync(join(state, "objects", f)).size).sort((a, b) => a - b)).toEqual([7 * MiB, 24 * MiB]);
  for (const f of files) expect(statSync(join(state, "objects", f)).mode & 0o777).toBe(0o600);
  expect(statSync(join(state, "objects")).mode & 0o777).toBe(0o700);
  s3.destroy();
  await first.close();

  const again = await emulator({ stateFile: state, settings: { speed: 0 } });
  try {
    const b = (await again.client().list<any>(`/v1/workspaces/${again.workspaceId}/buckets`))[0];
    const k = again.storageKeys.find((x) => x.workspaceId === again.workspaceId)!;
    const s3b = new S3Client({ endpoint: b.endpoint, region: b.region, forcePathStyle: true, credentials: { accessKeyId: k.accessKeyId, secretAccessKey: k.secret } });
    const whole = Buffer.from(await (await s3b.send(new GetObjectCommand({ Bucket: "disk-bucket", Key: "big.bin" }))).Body!.transformToByteArray());
    expect(md5(whole)).toBe(md5(big));
    const range = Buffer.from(await (await s3b.send(new GetObjectCommand({ Bucket: "disk-bucket", Key: "parts.bin", Range: "bytes=6291455-6291460" }))).Body!.transformToByteArray());
    expect(range).toEqual(big.subarray(6 * MiB - 1, 6 * MiB + 5));
    const second = await s3b.send(new GetObjectCommand({ Bucket: "disk-bucket", Key: "parts.bin", PartNumber: 2 }));
    expect(Buffer.from(await second.Body!.transformToByteArray())).toEqual(parts[1]);
    // The control route and the dashboard's download still work.
    await again.control("POST", "/storage/objects", { bucket: "disk-bucket", key: "note.txt", content: "hello" });
    const bucketId = again.emu.store.table<any>("buckets").all()[0].id;
    const note = await fetch(`${again.baseUrl}${DASHBOARD_PREFIX}/api/buckets/${bucketId}/object?key=note.txt`);
    expect([note.status, note.headers.get("content-length"), await note.text()]).toEqual([200, "5", "hello"]);
    expect(bodyFiles(state)).toHaveLength(3);

    // Deleting an object, then the bucket with force, then everything: the files go too.
    await s3b.send(new PutObjectCommand({ Bucket: "disk-bucket", Key: "big.bin", Body: "replaced" }));
    await until("the replaced body to go", () => bodyFiles(state).every((f) => statSync(join(state, "objects", f)).size !== 24 * MiB));
    await again.client().delete(`/v1/workspaces/${again.workspaceId}/buckets/disk-bucket`, { query: { force: true } });
    await until("the bucket's files to go", () => bodyFiles(state).length === 0);
    const s3c = await s3Of(again, "after-reset");
    await s3c.send(new PutObjectCommand({ Bucket: "after-reset", Key: "x", Body: "x" }));
    expect(bodyFiles(state)).toHaveLength(1);
    await again.control("POST", "/reset");
    await until("a reset to remove every body", () => bodyFiles(state).length === 0);
    s3b.destroy();
    s3c.destroy();
  } finally {
    await again.close();
  }
});

test("a state written by an earlier release, bodies inline in the rows: at start they move to files", async () => {
  const state = join(dir, "inline");
  const first = await emulator({ stateFile: state, settings: { speed: 0 } });
  const s3 = await s3Of(first, "inline-bucket");
  await s3.send(new PutObjectCommand({ Bucket: "inline-bucket", Key: "old.txt", Body: "from before" }));
  // As an earlier release kept it: base64 in the row, no file.
  const objects = first.emu.store.table<any>("bucketObjects");
  const row = objects.all()[0];
  rmSync(join(state, "objects", row.blob));
  objects.update(row.id, { body: Buffer.from("from before").toString("base64"), blob: undefined });
  s3.destroy();
  await first.close();

  const again = await emulator({ stateFile: state, settings: { speed: 0 } });
  try {
    const moved = again.emu.store.table<any>("bucketObjects").all()[0];
    expect([moved.body, typeof moved.blob]).toEqual([undefined, "string"]);
    expect(bodyFiles(state)).toEqual([moved.blob]);
    const b = (await again.client().list<any>(`/v1/workspaces/${again.workspaceId}/buckets`))[0];
    const k = again.storageKeys.find((x) => x.workspaceId === again.workspaceId)!;
    const s3b = new S3Client({ endpoint: b.endpoint, region: b.region, forcePathStyle: true, credentials: { accessKeyId: k.accessKeyId, secretAccessKey: k.secret } });
    expect(await (await s3b.send(new GetObjectCommand({ Bucket: "inline-bucket", Key: "old.txt" }))).Body!.transformToString()).toBe("from before");
    s3b.destroy();
  } finally {
    await again.close();
  }
});

test("without --state, bodies live in a temporary directory that close removes", async () => {
  const emu = await emulator({ settings: { speed: 0 } });
  const s3 = await s3Of(emu, "temp-bucket");
  await s3.send(new PutObjectCommand({ Bucket: "temp-bucket", Key: "a", Body: "in a file" }));
  const { blobsOf } = await import("../../emulator/blobs");
  const where = blobsOf(emu.emu).dir;
  expect(readdirSync(where).filter((f) => f !== "tmp")).toHaveLength(1);
  expect(JSON.stringify(emu.emu.store.toJSON())).not.toContain(Buffer.from("in a file").toString("base64"));
  s3.destroy();
  await emu.close();
  expect(existsSync(where)).toBe(false);
});

test("a SIGKILL in the middle of an upload leaves no half object: after a restart the key is absent and the partial file gone", async () => {
  const state = join(dir, "killed");
  const start = async () => {
    const proc = spawn(process.execPath, [CLI, "--speed", "0", "--state", state], { stdio: ["ignore", "pipe", "inherit"] });
    procs.push(proc);
    const exited = new Promise((r) => proc.once("exit", r));
    const line = await new Promise<string>((ok, fail) => {
      createInterface({ input: proc.stdout! }).once("line", ok);
      proc.once("exit", (code) => fail(new Error(`the emulator exited with ${code}`)));
    });
    return { proc, exited, info: JSON.parse(line) as { baseUrl: string; workspaceId: string; apiKey: string } };
  };
  const first = await start();
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${first.info.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${first.info.apiKey}`, "content-type": "application/json", ...init.headers } });
  const bucket: any = await (await api(`/v1/workspaces/${first.info.workspaceId}/buckets`, { method: "POST", body: JSON.stringify({ name: "half-bucket" }) })).json();
  const keys = ((await (await fetch(`${first.info.baseUrl}/_emulator/storage/access-keys`)).json()) as any).data;
  const k = keys.find((x: any) => x.workspaceId === first.info.workspaceId);
  const s3 = new S3Client({ endpoint: bucket.endpoint, region: bucket.region, forcePathStyle: true, credentials: { accessKeyId: k.accessKeyId, secretAccessKey: k.secret } });
  await s3.send(new PutObjectCommand({ Bucket: "half-bucket", Key: "whole.bin", Body: "complete" }));
  const url = new URL(await getSignedUrl(s3, new PutObjectCommand({ Bucket: "half-bucket", Key: "half.bin" }), { expiresIn: 600 }));

  // 200 MiB streamed in (generated as sent, never held whole here): the emulator's RSS grows by far less.
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${first.proc.pid}/status`, "utf8"))![1]) * 1024;
  const bigUrl = new URL(await getSignedUrl(s3, new PutObjectCommand({ Bucket: "half-bucket", Key: "large.bin" }), { expiresIn: 600 }));
  const baseRss = rss();
  let peakRss = baseRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rss())), 20);
  const status = await new Promise<number>((resolve, reject) => {
    const put = httpRequest(bigUrl, { method: "PUT", headers: { "content-length": String(200 * MiB) } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    put.on("error", reject);
    const chunk = randomBytes(MiB);
    let sent = 0;
    const more = () => {
      while (sent < 200) {
        sent += 1;
        if (!put.write(chunk)) return void put.once("drain", more);
      }
      put.end();
    };
    more();
  }).finally(() => clearInterval(sampler));
  expect(status).toBe(200);
  // (half the object: a body held whole would take all of it, twice over as base64)
  expect(peakRss - baseRss).toBeLessThan(100 * MiB);
  process.stdout.write(`S3 bodies on disk: the emulator's RSS grew by ${((peakRss - baseRss) / MiB).toFixed(0)} MiB during a 200 MiB upload\n`);

  // 32 MiB announced, 8 MiB sent: the body is streaming into its temporary file when the process dies.
  const req = httpRequest(url, { method: "PUT", headers: { "content-length": String(32 * MiB) } });
  req.on("error", () => undefined);
  req.write(randomBytes(8 * MiB));
  const tmp = join(state, "objects", "tmp");
  await until("the partial body in tmp/", () => readdirSync(tmp).some((f) => statSync(join(tmp, f)).size > 0));
  first.proc.kill("SIGKILL");
  await first.exited;
  req.destroy();
  expect(readdirSync(tmp).length).toBeGreaterThan(0);

  const second = await start();
  try {
    const s3b = new S3Client({ endpoint: bucket.endpoint.replace(first.info.baseUrl, second.info.baseUrl), region: bucket.region, forcePathStyle: true, credentials: { accessKeyId: k.accessKeyId, secretAccessKey: k.secret } });
    const missing = await s3b.send(new GetObjectCommand({ Bucket: "half-bucket", Key: "half.bin" })).then(() => "found", (e) => e.name);
    expect(missing).toBe("NoSuchKey");
    const kept = await s3b.send(new GetObjectCommand({ Bucket: "half-bucket", Key: "whole.bin" }));
    expect(await kept.Body!.transformToString()).toBe("complete");
    expect(readdirSync(tmp)).toEqual([]);
    expect(bodyFiles(state)).toHaveLength(2);
    s3b.destroy();
  } finally {
    second.proc.kill("SIGTERM");
    await second.exited;
    s3.destroy();
  }
});
