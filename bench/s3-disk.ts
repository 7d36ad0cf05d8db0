// `make bench-s3`: object bodies on disk. 2 GB uploaded as 20 objects of 100 MiB through the `aws`
// CLI (multipart, as users run it) to an emulator with `--state`, in its own process: its peak
// RSS (sampled from /proc every 50 ms) against the 300 MB target, and what the journal and
// snapshot grew by against 1 MB. Run alone with `node dist/bench/s3-disk.js [--objects 20] [--mib 100]`.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

const RSS_TARGET_MB = 300;
const JOURNAL_TARGET_BYTES = 1_000_000;

interface Info { baseUrl: string; workspaceId: string; apiKey: string }

const rssMb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
};
const stateBytes = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".jsonl")).reduce((n, f) => n + statSync(join(dir, f)).size, 0);

function aws(cwd: string, endpoint: string, key: { accessKeyId: string; secret: string }, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("aws", ["--endpoint-url", endpoint, ...args], {
      cwd,
      maxBuffer: 16 << 20,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin", ...(process.env.PYENV_ROOT ? { PYENV_ROOT: process.env.PYENV_ROOT } : {}),
        HOME: join(cwd, "home"), AWS_CONFIG_FILE: join(cwd, "home/config"), AWS_SHARED_CREDENTIALS_FILE: join(cwd, "home/credentials"),
        AWS_ACCESS_KEY_ID: key.accessKeyId, AWS_SECRET_ACCESS_KEY: key.secret, AWS_DEFAULT_REGION: "af-west-1", AWS_EC2_METADATA_DISABLED: "true", AWS_PAGER: "",
      },
    }, (err, stdout, stderr) => (err ? reject(new Error(`aws ${args.join(" ")}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { objects: { type: "string", default: "20" }, mib: { type: "string", default: "100" } } });
  const objects = Number(values.objects);
  const mib = Number(values.mib);
  const work = mkdtempSync(join(tmpdir(), "bench-s3-"));
  const state = join(work, "state");
  mkdirSync(join(work, "home"));
  let proc: ChildProcess | undefined;
  try {
    // One source file, uploaded under each key: 2 GB reach the emulator, 100 MiB sit in the bench's directory.
    const source = join(work, "object.bin");
    const fd = openSync(source, "w");
    const block = Buffer.alloc(1024 * 1024);
    const md5 = createHash("md5");
    for (let i = 0; i < mib; i++) {
      for (let j = 0; j < block.length; j += 4) block.writeUInt32LE((i * 2654435761 + j * 40503) >>> 0, j);
      md5.update(block);
      writeSync(fd, block);
    }
    closeSync(fd);

    proc = spawn(process.execPath, [join(__dirname, "../emulator/cli.js"), "--speed", "0", "--state", state], { stdio: ["ignore", "pipe", "inherit"] });
    const info = JSON.parse(await new Promise<string>((ok, fail) => {
      createInterface({ input: proc!.stdout! }).once("line", ok);
      proc!.once("exit", (code) => fail(new Error(`the emulator exited with ${code}`)));
    })) as Info;
    const headers = { authorization: `Bearer ${info.apiKey}`, "content-type": "application/json" };
    const bucket = await (await fetch(`${info.baseUrl}/v1/workspaces/${info.workspaceId}/buckets`, { method: "POST", headers, body: JSON.stringify({ name: "bench-bodies" }) })).json() as { endpoint: string };
    const keys = (await (await fetch(`${info.baseUrl}/_emulator/storage/access-keys`)).json()) as { data: { workspaceId: string; accessKeyId: string; secret: string }[] };
    const key = keys.data.find((k) => k.workspaceId === info.workspaceId)!;

    const pid = proc.pid!;
    const startRss = rssMb(pid);
    const startState = stateBytes(state);
    let peak = startRss;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssMb(pid));
      } catch {
        // the process is gone; the uploads will say why
      }
    }, 50);
    const started = Date.now();
    for (let i = 0; i < objects; i++) await aws(work, bucket.endpoint, key, ["s3", "cp", "object.bin", `s3://bench-bodies/object-${i}.bin`, "--no-progress"]);
    const seconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    // What the bucket holds, read back: every object whole, with the source's bytes.
    const listing = await aws(work, bucket.endpoint, key, ["s3", "ls", "s3://bench-bodies/"]);
    const listed = listing.trim().split("\n").filter((l) => l.includes(`${mib * 1024 * 1024} object-`)).length;
    const head = JSON.parse(await aws(work, bucket.endpoint, key, ["s3api", "head-object", "--bucket", "bench-bodies", "--key", `object-${objects - 1}.bin`]));
    await aws(work, bucket.endpoint, key, ["s3", "cp", `s3://bench-bodies/object-${objects - 1}.bin`, "back.bin", "--no-progress"]);
    const back = createHash("md5").update(readFileSync(join(work, "back.bin"))).digest("hex");
    const journal = stateBytes(state) - startState;
    const bodies = readdirSync(join(state, "objects")).filter((f) => f !== "tmp").reduce((n, f) => n + statSync(join(state, "objects", f)).size, 0);

    const totalMb = (objects * mib * 1024 * 1024) / 1e6;
    const rows = [
      { what: `emulator peak RSS during ${objects} x ${mib} MiB uploads (MB)`, value: peak.toFixed(0), detail: `start ${startRss.toFixed(0)} MB`, target: `< ${RSS_TARGET_MB}`, ok: peak < RSS_TARGET_MB },
      { what: "journal + snapshot growth (bytes)", value: String(journal), detail: `body files: ${(bodies / 1e6).toFixed(0)} MB`, target: `< ${JOURNAL_TARGET_BYTES}`, ok: journal < JOURNAL_TARGET_BYTES },
      { what: "objects listed at full size, last one read back intact", value: `${listed}/${objects}`, detail: `ETag ${head.ETag}`, target: "all", ok: listed === objects && back === md5.digest("hex") },
      { what: "upload throughput (MB/s, aws CLI, 2 cores shared)", value: (totalMb / seconds).toFixed(0), detail: `${seconds.toFixed(0)} s`, target: "(info)", ok: true },
    ];
    console.log("\nS3 bodies on disk (aws CLI, --state)\n");
    console.table(rows);
    if (rows.some((r) => !r.ok)) process.exitCode = 1;
  } finally {
    if (proc && proc.exitCode === null) {
      proc.kill("SIGTERM");
      await new Promise((r) => proc!.once("exit", r));
    }
    rmSync(work, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
