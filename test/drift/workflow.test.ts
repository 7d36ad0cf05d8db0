// The GitHub Actions workflow of examples/drift, its commands run as written against the emulator:
// the check job once per shard of the matrix, then the merge job (Markdown into the job summary,
// JSON and JUnit kept, the report mailed and posted to a webhook). Three small stacks of one
// project and an empty stack of another project with the same name as one of them, on one backend,
// one stack drifted: the shards split them with none twice and none missed, the merged report
// equals one run over all of them, its exit code is 7, and the email reaches the emulator's sandbox
// outbox. The next night (yesterday's report as the baseline) nothing new is sent. `--dir` shards
// of the two projects merge into four stacks, and a merge missing a shard names it and exits 1. A
// new drift with --baseline is posted to a webhook answering 503, then 200; in the same run a send
// that fails is reported and leaves the exit code alone.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { openStack, ROOT, runsInProcess, type StackHandle } from "../../scripts/pulumi-env";
import type { Report } from "../../provider/drift/types";
import { emulator, type TestEmulator } from "../support/emulator";
import { PROGRAMS } from "../support/stack";
import { CLI, drift, fleetEnv } from "./fleet";

jest.setTimeout(900_000);
// js-yaml (a devDependency), to read the workflow as GitHub does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { load } = require("js-yaml") as { load(text: string): unknown };
const sh = promisify(execFile);

let emu: TestEmulator;
let dir: string;
const stacks: StackHandle[] = [];
/** The other project's folder; its one stack has no resources and the name of a project-env stack. */
let edgeDir: string;
let edge: StackHandle;
/** A chat tool's incoming webhook: answers the queued statuses, then 200; keeps each body. */
let hook: Server;
let hookUrl: string;
const hookAnswers: number[] = [];
const hookBodies: string[] = [];
beforeAll(async () => {
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      hookBodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(hookAnswers.shift() ?? 200, { "retry-after": "0" }).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/services/T1/B1/s3cr3t-hook-token`;
  emu = await emulator({ settings: { speed: 0 } });
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
  dir = mkdtempSync(join(ROOT, ".pulumi-state", "drift-wf-"));
  const programDir = join(PROGRAMS, "project-env");
  for (const name of ["alpha", "beta", "gamma"]) {
    const s = await openStack({
      programDir, stackName: `wf-${name}`, stateDir: dir, env: fleetEnv(emu, dir),
      config: { name: `wf-${name}-${process.pid}`, description: "v1", envs: "" },
      // The stacks are only set up here; what the workflow checks never runs the program.
      inProcess: runsInProcess(programDir),
    });
    await s.stack.up();
    stacks.push(s);
  }
  edgeDir = join(dir, "edge");
  mkdirSync(edgeDir);
  edge = await openStack({ programDir: edgeDir, stackName: "wf-alpha", stateDir: dir, env: fleetEnv(emu, dir), program: { projectName: "edge", run: async () => ({}) } });
  await edge.stack.up();
  // Drift in one stack: its project's description edited by hand.
  const id = (await stacks[1].stack.outputs()).projectId.value;
  await emu.client().patch(`/v1/projects/${id}`, { description: "edited by hand" });
}, 900_000);
afterAll(async () => {
  await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
  await emu.control("DELETE", "/mail/outbox");
  if (edge) await edge.stack.workspace.removeStack(edge.stack.name, { force: true });
  for (const s of stacks.splice(0)) {
    await s.stack.destroy();
    await s.stack.workspace.removeStack(s.stack.name, { force: true });
  }
  try {
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Every stack on the backend: the three of project-env and the other project's one. */
const ALL = ["organization/edge/wf-alpha", "organization/project-env/wf-alpha", "organization/project-env/wf-beta", "organization/project-env/wf-gamma"];

interface Workflow {
  jobs: Record<string, { strategy?: { matrix: { shard: number[] } }; env?: Record<string, string>; steps: { run?: string }[] }>;
}

/** The workflow's drift commands, `npx cloudplatform-drift` run as `node <the built command>`. */
function commands(job: Workflow["jobs"][string], vars: Record<string, string>): string[] {
  return job.steps.map((s) => s.run ?? "").filter((r) => r.includes("cloudplatform-drift") || r.includes("GITHUB_STEP_SUMMARY")).map((r) =>
    r.replace(/npx cloudplatform-drift/g, `node ${CLI}`).replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, v: string) => {
      if (!(v in vars)) throw new Error(`the workflow uses \${{ ${v} }}, which the test does not set`);
      return vars[v];
    }));
}

test("the scheduled workflow's shards and merge: one report, exit 7, the job summary and the email", async () => {
  const wf = load(readFileSync(join(ROOT, "examples", "drift", "github-actions.yml"), "utf8")) as Workflow;
  const work = join(dir, "runner");
  mkdirSync(join(work, "reports"), { recursive: true });
  const summary = join(work, "summary.md");
  const env = {
    ...fleetEnv(emu, dir),
    GITHUB_STEP_SUMMARY: summary,
    CLOUDPLATFORM_MAIL_KEY: emu.keys.sandbox,
    CLOUDPLATFORM_DRIFT_FROM: `Drift <drift@${emu.testMailDomain}>`,
  };
  const shards = wf.jobs.check.strategy!.matrix.shard;
  expect(shards.length).toBeGreaterThan(1);
  for (const shard of shards) {
    // Each runner of the matrix: its own folder, its report uploaded (here: copied into reports/).
    const runner = join(work, `shard-${shard}`);
    mkdirSync(runner);
    for (const cmd of commands(wf.jobs.check, { "matrix.shard": String(shard) })) await sh("bash", ["-ec", cmd], { cwd: runner, env });
    for (const f of readdirSync(runner)) writeFileSync(join(work, "reports", f), readFileSync(join(runner, f)));
  }
  const parts = readdirSync(join(work, "reports")).map((f) => JSON.parse(readFileSync(join(work, "reports", f), "utf8")) as Report);
  expect(parts.length).toBe(shards.length);
  const names = parts.flatMap((p) => p.stacks.map((s) => s.name)).sort();
  expect(names).toEqual(ALL);
  expect(parts.map((p) => p.shard).sort()).toEqual(shards.map((i) => `${i}/${shards.length}`).sort());

  const [merge, ...rest] = commands(wf.jobs.report, { "secrets.DRIFT_WEBHOOK_URL": hookUrl });
  const mergeEnv = { ...env, ...wf.jobs.report.env, CLOUDPLATFORM_MAIL_KEY: emu.keys.sandbox, CLOUDPLATFORM_DRIFT_FROM: env.CLOUDPLATFORM_DRIFT_FROM };
  const runMerge = () => sh("bash", ["-ec", merge], { cwd: work, env: mergeEnv }).then(() => ({ code: 0, stderr: "" }), (e) => ({ code: e.code as number, stderr: e.stderr as string }));
  // The first night: no baseline yet, so everything is new and is sent.
  const first = await runMerge();
  expect(first.code).toBe(7);
  expect(first.stderr).toMatch(/no baseline at baseline\/drift\.json: every finding is new/);
  for (const cmd of rest) await sh("bash", ["-ec", cmd], { cwd: work, env });

  const report = JSON.parse(readFileSync(join(work, "drift.json"), "utf8")) as Report;
  const whole = await drift(["--all", "--format", "json"], fleetEnv(emu, dir));
  const plain = (r: Report) => r.stacks.map((s) => [s.name, s.status, s.findings.map(({ baseline, changelog, ...f }) => ({ ...f, changelog: changelog?.map(({ baseline: _, ...c }) => c) }))]);
  expect(plain(report)).toEqual(plain(JSON.parse(whole.stdout)));
  expect(report.summary).toMatchObject({ stacksChecked: 4, stacksDrifted: 1, stacksFailed: 0, resourcesDrifted: 1 });
  expect(report.notification).toMatchObject({ to: ["platform-team@example.com"], status: "sent" });
  expect(report.webhook).toEqual({ url: new URL(hookUrl).origin, status: "sent", attempts: 1 });
  expect(hookBodies).toHaveLength(1);
  expect(JSON.parse(hookBodies[0]).text).toMatch(/^Drift found: 4 stacks checked: 1 drifted/);

  const md = readFileSync(summary, "utf8");
  expect(md).toMatch(/\| Project app \| update \| `description` \| `v1` \| `edited by hand` \|/);
  expect(readFileSync(join(work, "drift.xml"), "utf8")).toMatch(/<failure message="1 resource drifted"/);

  const outbox = await emu.control("GET", "/mail/outbox?to=platform-team@example.com");
  const mails = outbox.data as { subject: string; html: string; text: string; from: string; sandbox: boolean }[];
  expect(mails.length).toBe(1);
  expect(mails[0]).toMatchObject({ subject: "Drift: 1 of 4 stacks drifted (1 resources)", sandbox: true });
  expect(mails[0].text).toMatch(/Project app update description: v1 -> edited by hand/);
  expect(mails[0].html).toMatch(/<td>edited by hand<\/td>/);

  // The next night: the previous run's report downloaded as the baseline; the same drift is not news.
  mkdirSync(join(work, "baseline"));
  writeFileSync(join(work, "baseline", "drift.json"), readFileSync(join(work, "drift.json")));
  expect((await runMerge()).code).toBe(7);
  const next = JSON.parse(readFileSync(join(work, "drift.json"), "utf8")) as Report;
  expect(next.baseline).toMatchObject({ new: 0, persisting: 1, resolved: 0 });
  expect([next.notification?.status, next.webhook?.status]).toEqual(["skipped", "skipped"]);
  expect(hookBodies).toHaveLength(1);
  expect(((await emu.control("GET", "/mail/outbox?to=platform-team@example.com")).data as unknown[]).length).toBe(1);
});

test("--dir shards of two projects with the same stack names merge into four stacks; a merge missing a shard names it and exits 1", async () => {
  const work = join(dir, "dir-shards");
  mkdirSync(work);
  const env = fleetEnv(emu, dir);
  for (const i of [1, 2]) {
    const r = await drift(["--dir", join(PROGRAMS, "project-env"), "--dir", edgeDir, "--shard", `${i}/2`, "--format", "json", "--out", join(work, `s${i}.json`)], env);
    expect([0, 7]).toContain(r.code);
  }
  const merged = await drift(["merge", join(work, "s1.json"), join(work, "s2.json"), "--format", "json"], env);
  const report = JSON.parse(merged.stdout) as Report;
  expect(report.stacks.map((s) => s.name)).toEqual(ALL);
  expect(report.stacks.filter((s) => s.stack === "wf-alpha").map((s) => s.project).sort()).toEqual(["edge", "project-env"]);
  expect(merged.code).toBe(7);
  const junit = await drift(["merge", join(work, "s1.json"), join(work, "s2.json"), "--format", "junit"], env);
  for (const name of ALL) expect(junit.stdout).toContain(`name="${name}"`);

  const part = await drift(["merge", join(work, "s1.json"), "--format", "json"], env);
  expect(part.code).toBe(1);
  expect(part.stderr).toMatch(/no report of shard 2\/2/);
  const partial = JSON.parse(part.stdout) as Report;
  expect(partial.stacks.find((s) => s.name === "shard 2/2")).toMatchObject({ status: "failed", error: { kind: "missing" } });
});

test("a new drift against the baseline: marked new, posted to a webhook that answers 503 then 200, no secret in the body; a send that fails is reported and the exit code stays the drift's", async () => {
  const env: Record<string, string> = { ...fleetEnv(emu, dir), CLOUDPLATFORM_MAIL_KEY: emu.keys.sandbox };
  const baseline = join(dir, "runner", "drift.json");
  expect(existsSync(baseline)).toBe(true);
  const id = (await stacks[2].stack.outputs()).projectId.value;
  await emu.client().patch(`/v1/projects/${id}`, { description: "also edited by hand" });
  hookAnswers.push(503);
  hookBodies.length = 0;
  // The email's sender is not a verified sending domain of the workspace, nor the sandbox's test domain: 403.
  const r = await drift([
    "--all", "--baseline", baseline, "--notify-on", "new", "--notify-webhook", hookUrl,
    "--notify-email", "ops@example.com", "--notify-from", "drift@unverified.example", "--format", "json",
  ], env);
  expect(r.code).toBe(7);
  const report = JSON.parse(r.stdout) as Report;
  expect(report.webhook).toEqual({ url: new URL(hookUrl).origin, status: "sent", attempts: 2 });
  expect(report.baseline).toMatchObject({ new: 1, persisting: 1, resolved: 0 });
  const byStack = Object.fromEntries(report.stacks.map((s) => [s.stack, s.findings.map((f) => f.baseline)]));
  expect([byStack["wf-beta"], byStack["wf-gamma"]]).toEqual([["persisting"], ["new"]]);
  expect(hookBodies).toHaveLength(2);
  const body = JSON.parse(hookBodies[1]);
  expect(body.text).toMatch(/1 new, 1 persisting, 0 resolved/);
  for (const text of [...hookBodies, r.stderr, r.stdout]) {
    for (const secret of [emu.apiKey, emu.keys.sandbox, env.PULUMI_CONFIG_PASSPHRASE, "s3cr3t-hook-token"]) expect(text.includes(secret)).toBe(false);
  }
  expect(r.stderr).toMatch(/HTTP 503; retrying/);
  expect(report.notification).toMatchObject({ status: "failed" });
  expect(report.notification!.message).toMatch(/403|verified/i);
  expect(r.stderr).toMatch(/the report was not mailed/);
});
