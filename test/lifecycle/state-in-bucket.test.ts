// Pulumi state in a platform bucket (docs/state-in-buckets.md): the self-managed backend on the
// bucket's S3 endpoint, path-style, with the workspace's storage access key. The real CLI runs a
// stack up and down with its state there, holds the stack's lock in the bucket while it updates,
// refuses to update a stack another lock holds, and `pulumi cancel` frees it.
import { execFile, type ExecFileException } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { TOOLS_BIN } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { EXAMPLES } from "../support/stack";

jest.setTimeout(600_000);

const BUCKET = "state-in-bucket-test";
const STACK = `s${process.pid}`;
const PROGRAM = join(EXAMPLES, "quickstart");

let emu: TestEmulator;
let home: string;
let s3: S3Client;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  home = mkdtempSync(join(tmpdir(), "cloudplatform-s3-state-"));
  const bucket = await emu.client().create<{ endpoint: string; region: string }>(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: BUCKET, visibility: "PRIVATE" });
  const key = emu.storageKeys.find((k) => k.workspaceId === emu.workspaceId)!;
  s3 = new S3Client({ endpoint: bucket.endpoint, region: bucket.region, forcePathStyle: true, credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secret } });
  env = {
    PATH: `${TOOLS_BIN}:${process.env.PATH}`,
    HOME: process.env.HOME,
    // The run's own (scripts/jest), where the program's ts-node cache goes.
    TMPDIR: tmpdir(),
    PULUMI_HOME: join(home, "pulumi-home"),
    PULUMI_BACKEND_URL: `s3://${BUCKET}?endpoint=${bucket.endpoint}&s3ForcePathStyle=true&region=${bucket.region}`,
    PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    AWS_ACCESS_KEY_ID: key.accessKeyId,
    AWS_SECRET_ACCESS_KEY: key.secret,
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_CONFIG_FILE: join(home, "aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(home, "aws-credentials"),
    CLOUDPLATFORM_BASE_URL: emu.baseUrl,
    CLOUDPLATFORM_API_KEY: emu.apiKey,
  };
});

afterAll(async () => {
  s3?.destroy();
  await emu?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Runs `pulumi <args>` in the program's folder; resolves with its exit code and output. */
function pulumi(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile("pulumi", [...args, "--stack", STACK, "--non-interactive"], { cwd: PROGRAM, env, timeout: 300_000 }, (err: ExecFileException | null, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

const keys = async (prefix: string) =>
  ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);

const lockDir = `.pulumi/locks/organization/quickstart/${STACK}/`;

test("a stack's state lives in the bucket, locked while it updates; another lock stops an update until pulumi cancel", async () => {
  const ok = (r: { code: number; out: string }) => expect({ code: r.code, out: r.code === 0 ? "" : r.out }).toEqual({ code: 0, out: "" });
  ok(await pulumi(["stack", "init"]));
  try {
    ok(await pulumi(["config", "set", "projectName", `state-${process.pid}`]));

    // While `up` runs, its lock is in the bucket.
    let sawLock = false;
    let done = false;
    const up = pulumi(["up", "--yes"]).finally(() => (done = true));
    while (!done) {
      if ((await keys(lockDir)).length > 0) sawLock = true;
      await new Promise((r) => setTimeout(r, 100));
    }
    ok(await up);
    expect(sawLock).toBe(true);
    expect(await keys(lockDir)).toEqual([]);
    expect(await keys(".pulumi/stacks/")).toContain(`.pulumi/stacks/quickstart/${STACK}.json`);
    expect((await emu.client().get<{ data: { name: string }[] }>(`/v1/workspaces/${emu.workspaceId}/projects`)).data.map((p) => p.name)).toContain(`state-${process.pid}`);

    // A lock a killed run left behind: the next update refuses, naming it; cancel removes it.
    const stale = { pid: 4242, username: "ci", hostname: "runner-7", timestamp: new Date().toISOString() };
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${lockDir}stale.json`, Body: JSON.stringify(stale), ContentType: "application/json" }));
    ok(await pulumi(["config", "set", "description", "changed while locked"]));
    const refused = await pulumi(["up", "--yes"]);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain("the stack is currently locked by 1 lock(s)");
    expect(refused.out).toContain("runner-7");
    ok(await pulumi(["cancel", "--yes"]));
    expect(await keys(lockDir)).toEqual([]);

    ok(await pulumi(["up", "--yes"]));
    ok(await pulumi(["destroy", "--yes"]));
  } finally {
    await pulumi(["stack", "rm", "--yes", "--force"]);
    for (const key of await keys("")) await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    await emu.client().delete(`/v1/workspaces/${emu.workspaceId}/buckets/${BUCKET}?force=true`);
  }
  expect(await emu.leftovers()).toEqual({});
});
