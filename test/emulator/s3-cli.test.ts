// The `aws` CLI against a bucket's S3 endpoint, as a user would run it: `--endpoint-url` and the
// storage access key in environment variables, with a temporary HOME and AWS config so nothing on
// the machine is read or written. `make test` installs Debian's awscli when `aws` is missing.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emulator, type TestEmulator } from "../support/emulator";

jest.setTimeout(180_000);

let emu: TestEmulator;
let dir: string;
let endpoint: string;
const BUCKET = "cli-bucket";

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  endpoint = (await emu.client().create<any>(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: BUCKET })).endpoint;
  dir = mkdtempSync(join(tmpdir(), "s3-cli-"));
  mkdirSync(join(dir, "home"));
  mkdirSync(join(dir, "up/sub"), { recursive: true });
  writeFileSync(join(dir, "small.txt"), "hello from the cli\n");
  writeFileSync(join(dir, "big.bin"), randomBytes(9 * 1024 * 1024)); // over the CLI's 8 MiB multipart threshold
  writeFileSync(join(dir, "up/a.txt"), "a");
  writeFileSync(join(dir, "up/sub/b.txt"), "b");
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `aws --endpoint-url <endpoint> ...args` in the temporary directory; an env value of undefined unsets it. */
function aws(args: string[], env: Record<string, string | undefined> = {}, url = endpoint): Promise<{ code: number; stdout: string; stderr: string }> {
  const k = emu.storageKeys.find((x) => x.workspaceId === emu.workspaceId)!;
  return new Promise((resolve, reject) => {
    execFile("aws", ["--endpoint-url", url, ...args], {
      cwd: dir,
      env: withoutUnset({
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        ...(process.env.PYENV_ROOT ? { PYENV_ROOT: process.env.PYENV_ROOT } : {}),
        HOME: join(dir, "home"),
        AWS_CONFIG_FILE: join(dir, "home/config"),
        AWS_SHARED_CREDENTIALS_FILE: join(dir, "home/credentials"),
        AWS_ACCESS_KEY_ID: k.accessKeyId,
        AWS_SECRET_ACCESS_KEY: k.secret,
        AWS_DEFAULT_REGION: "af-west-1",
        AWS_EC2_METADATA_DISABLED: "true",
        AWS_PAGER: "",
        ...env,
      }),
    }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") return reject(new Error(`cannot run aws (install awscli: make system-deps): ${err.message}`));
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

const withoutUnset = (env: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));

async function ok(args: string[]): Promise<string> {
  const r = await aws(args);
  if (r.code !== 0) throw new Error(`aws ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

test("aws s3 cp, ls and sync, and s3api put-object and get-object, against the emulator", async () => {
  expect(await ok(["s3", "cp", "small.txt", `s3://${BUCKET}/docs/small.txt`, "--no-progress"])).toContain(`upload: ./small.txt to s3://${BUCKET}/docs/small.txt`);
  await ok(["s3", "cp", "big.bin", `s3://${BUCKET}/big.bin`, "--no-progress"]);
  const head = JSON.parse(await ok(["s3api", "head-object", "--bucket", BUCKET, "--key", "big.bin"]));
  expect(head.ContentLength).toBe(9 * 1024 * 1024);
  expect(head.ETag).toMatch(/^"[0-9a-f]{32}-2"$/); // uploaded in two parts

  const listing = await ok(["s3", "ls", `s3://${BUCKET}/`]);
  expect(listing).toMatch(/PRE docs\/\n/);
  expect(listing).toMatch(/ 9437184 big\.bin\n/);
  expect(await ok(["s3", "ls"])).toContain(BUCKET);

  const up = await ok(["s3", "sync", "up", `s3://${BUCKET}/synced/`, "--no-progress"]);
  expect(up.trim().split("\n").sort()).toEqual([`upload: up/a.txt to s3://${BUCKET}/synced/a.txt`, `upload: up/sub/b.txt to s3://${BUCKET}/synced/sub/b.txt`]);
  expect(await ok(["s3", "sync", "up", `s3://${BUCKET}/synced/`, "--no-progress"])).toBe(""); // nothing changed
  await ok(["s3", "sync", `s3://${BUCKET}/`, "down", "--no-progress"]);
  expect(readFileSync(join(dir, "down/big.bin")).equals(readFileSync(join(dir, "big.bin")))).toBe(true);
  expect(readFileSync(join(dir, "down/synced/sub/b.txt"), "utf8")).toBe("b");
  expect(readFileSync(join(dir, "down/docs/small.txt"), "utf8")).toBe("hello from the cli\n");

  const put = JSON.parse(await ok(["s3api", "put-object", "--bucket", BUCKET, "--key", "api/doc.json", "--body", "small.txt", "--content-type", "application/json", "--metadata", "team=shop"]));
  expect(put.ETag).toMatch(/^"[0-9a-f]{32}"$/);
  const got = JSON.parse(await ok(["s3api", "get-object", "--bucket", BUCKET, "--key", "api/doc.json", "got.json"]));
  expect(got).toMatchObject({ ContentType: "application/json", Metadata: { team: "shop" }, ETag: put.ETag, ContentLength: 19 });
  expect(readFileSync(join(dir, "got.json"), "utf8")).toBe("hello from the cli\n");

  const wrong = await aws(["s3", "ls", `s3://${BUCKET}/`], { AWS_SECRET_ACCESS_KEY: "not-the-secret" });
  expect(wrong.code).not.toBe(0);
  expect(wrong.stderr).toContain("SignatureDoesNotMatch");

  await ok(["s3", "rm", `s3://${BUCKET}/`, "--recursive"]);
  expect(await emu.leftovers()).toEqual({ buckets: 1 });
  await emu.client().delete(`/v1/workspaces/${emu.workspaceId}/buckets/${BUCKET}`);
  expect(await emu.leftovers()).toEqual({});
});

test("aws s3 cp with the CLI's default region (us-east-1) downloads from a bucket in another region", async () => {
  // No region configured: the CLI signs for us-east-1. The bucket's region comes back in
  // x-amz-bucket-region, on the HEAD that starts the download (which has no body) as on the rest.
  const far = await emu.client().create<any>(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: "cli-far" }, { query: { region: "af-south-1" } });
  await emu.control("POST", "/storage/objects", { bucket: "cli-far", key: "reports/q3.csv", content: "quarter,total\nq3,42\n", region: "af-south-1" });
  const defaults = { AWS_DEFAULT_REGION: undefined, AWS_REGION: undefined };
  for (const [url, file] of [[far.endpoint, "q3-bucket-endpoint.csv"], [`${emu.baseUrl}/_storage/us-east-1`, "q3-us-east-1.csv"]]) {
    const r = await aws(["s3", "cp", "s3://cli-far/reports/q3.csv", file, "--no-progress"], defaults, url);
    expect([url, r.code, r.stderr]).toEqual([url, 0, ""]);
    expect(readFileSync(join(dir, file), "utf8")).toBe("quarter,total\nq3,42\n");
  }
  const up = await aws(["s3", "cp", "small.txt", "s3://cli-far/small.txt", "--no-progress"], defaults, far.endpoint);
  expect([up.code, up.stderr]).toEqual([0, ""]);
  const listed = await aws(["s3", "ls", "s3://cli-far/"], defaults, far.endpoint);
  expect([listed.code, listed.stdout]).toEqual([0, expect.stringMatching(/PRE reports\/\n[\s\S]*small\.txt\n/)]);
  expect((await aws(["s3", "rm", "s3://cli-far/", "--recursive"], defaults, far.endpoint)).code).toBe(0);
  await emu.client().delete(`/v1/workspaces/${emu.workspaceId}/buckets/cli-far`, { query: { region: "af-south-1" } });
});
