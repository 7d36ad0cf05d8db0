// The GitHub Actions workflow of examples/drift, its commands run as written against the emulator:
// the check job once per shard of the matrix, then the merge job (Markdown into the job summary,
// JSON and JUnit kept, the report mailed). Three small stacks on one backend, one of them drifted:
// the shards split them with none twice and none missed, the merged report equals one run over
// all of them, its exit code is 7, and the email reaches the emulator's sandbox outbox. A send
// that fails is reported and leaves the exit code alone.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
beforeAll(async () => {
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
  // Drift in one stack: its project's description edited by hand.
  const id = (await stacks[1].stack.outputs()).projectId.value;
  await emu.client().patch(`/v1/projects/${id}`, { description: "edited by hand" });
}, 900_000);
afterAll(async () => {
  await emu.control("DELETE", "/mail/outbox");
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
  expect(names).toEqual(stacks.map((s) => `organization/project-env/${s.stack.name}`).sort());
  expect(parts.map((p) => p.shard).sort()).toEqual(shards.map((i) => `${i}/${shards.length}`).sort());

  const [merge, ...rest] = commands(wf.jobs.report, {});
  const merged = await sh("bash", ["-ec", merge], { cwd: work, env: { ...env, ...wf.jobs.report.env, CLOUDPLATFORM_MAIL_KEY: emu.keys.sandbox, CLOUDPLATFORM_DRIFT_FROM: env.CLOUDPLATFORM_DRIFT_FROM } }).then(() => 0, (e) => e.code);
  expect(merged).toBe(7);
  for (const cmd of rest) await sh("bash", ["-ec", cmd], { cwd: work, env });

  const report = JSON.parse(readFileSync(join(work, "drift.json"), "utf8")) as Report;
  const whole = await drift(["--all", "--format", "json"], fleetEnv(emu, dir));
  const plain = (r: Report) => r.stacks.map((s) => [s.name, s.status, s.findings]);
  expect(plain(report)).toEqual(plain(JSON.parse(whole.stdout)));
  expect(report.summary).toMatchObject({ stacksChecked: 3, stacksDrifted: 1, stacksFailed: 0, resourcesDrifted: 1 });
  expect(report.notification).toMatchObject({ to: ["platform-team@example.com"], status: "sent" });

  const md = readFileSync(summary, "utf8");
  expect(md).toMatch(/\| Project app \| update \| `description` \| `v1` \| `edited by hand` \|/);
  expect(readFileSync(join(work, "drift.xml"), "utf8")).toMatch(/<failure message="1 resource drifted"/);

  const outbox = await emu.control("GET", "/mail/outbox?to=platform-team@example.com");
  const mails = outbox.data as { subject: string; html: string; text: string; from: string; sandbox: boolean }[];
  expect(mails.length).toBe(1);
  expect(mails[0]).toMatchObject({ subject: "Drift: 1 of 3 stacks drifted (1 resources)", sandbox: true });
  expect(mails[0].text).toMatch(/Project app update description: v1 -> edited by hand/);
  expect(mails[0].html).toMatch(/<td>edited by hand<\/td>/);
});

test("a send that fails is reported, and the exit code stays the drift's", async () => {
  const env = { ...fleetEnv(emu, dir), CLOUDPLATFORM_MAIL_KEY: emu.keys.sandbox };
  // Not a verified sending domain of the workspace, nor the sandbox's test domain: 403.
  const r = await drift(["--all", "--format", "json", "--notify-email", "ops@example.com", "--notify-from", "drift@unverified.example"], env);
  expect(r.code).toBe(7);
  const report = JSON.parse(r.stdout) as Report;
  expect(report.notification).toMatchObject({ status: "failed" });
  expect(report.notification!.message).toMatch(/403|verified/i);
  expect(r.stderr).toMatch(/the report was not mailed/);
  expect(r.stderr).not.toContain(emu.keys.sandbox);
});
