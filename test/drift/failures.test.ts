// Each way a stack can fail to be checked gets its own finding, while the other stacks are still
// checked, in one run: a backend that cannot be read, a stack holding secrets under a passphrase the
// run does not have, a stack whose provider plugin is missing, and an API answering 401, or 503,
// every time. The next test runs with no passphrase at all.
// The JSON report is still written (--out), and the exit code is 1 although another stack drifted.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { openStack, ROOT, TOOLS_BIN, type StackHandle } from "../../scripts/pulumi-env";
import type { Report } from "../../provider/drift/types";
import { emulator, type TestEmulator } from "../support/emulator";
import { PROGRAMS } from "../support/stack";
import { drift, fleetEnv } from "./fleet";

jest.setTimeout(900_000);

const SEALED_PASSPHRASE = `another-passphrase-${process.pid}`;
const SEALED_TOKEN = `sealed-${process.pid}-s3cr3t`;

let emu: TestEmulator;
let dir: string;
const stacks: StackHandle[] = [];
const ids: Record<string, string> = {};
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
  dir = mkdtempSync(join(ROOT, ".pulumi-state", "drift-fail-"));
  const make = async (name: string, env: Record<string, string> = {}) => {
    const s = await openStack({
      programDir: join(PROGRAMS, "project-env"), stackName: name, stateDir: dir, env: fleetEnv(emu, dir, env),
      config: { name: `${name}-${process.pid}`, description: "v1", envs: "" },
    });
    ids[name] = (await s.stack.up()).outputs.projectId.value;
    stacks.push(s);
  };
  await make("ok");
  await make("drifted");
  await make("auth");
  await make("down");
  // On the native SDK: the check below has no cloudplatform plugin to read it with.
  const work = join(dir, "native-work");
  mkdirSync(work);
  const native = await openStack({
    programDir: work, stateDir: dir, stackName: "plugin", env: fleetEnv(emu, dir),
    program: {
      projectName: "drift-native",
      run: async () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const cloud = require("pulumi-cloudplatform/native");
        return { projectId: new cloud.Project("app", { name: `plugin-${process.pid}` }).id as pulumi.Output<string> };
      },
    },
  });
  ids.plugin = (await native.stack.up()).outputs.projectId.value;
  stacks.push(native);
  // Secrets in its state, under a passphrase the check does not have: no resource, nothing to read.
  const sealedWork = join(dir, "sealed-work");
  mkdirSync(sealedWork);
  const sealed = await openStack({
    programDir: sealedWork, stateDir: dir, stackName: "sealed", env: fleetEnv(emu, dir, { PULUMI_CONFIG_PASSPHRASE: SEALED_PASSPHRASE }),
    program: { projectName: "drift-sealed", run: async () => ({ token: pulumi.secret(SEALED_TOKEN) }) },
  });
  await sealed.stack.up();
  stacks.push(sealed);
}, 900_000);
afterAll(async () => {
  await emu.control("DELETE", "/faults");
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

test("every failure is its own entry, the other stacks are still checked, the report is written, exit 1", async () => {
  await emu.client().patch(`/v1/projects/${ids.drifted}`, { description: "edited by hand" });
  await emu.control("POST", "/faults", { kind: "status", status: 401, pathRegex: `^/v1/projects/${ids.auth}` });
  await emu.control("POST", "/faults", { kind: "status", status: 503, pathRegex: `^/v1/projects/${ids.down}` });
  // A file where the backend's folder should be.
  const notADir = join(dir, "not-a-backend");
  writeFileSync(notADir, "x");
  const out = join(dir, "report.json");
  // PATH without bin/: the CLI and the dynamic provider host, but no cloudplatform plugin.
  const env = fleetEnv(emu, dir, { PATH: `${TOOLS_BIN}:${process.env.PATH}` });
  const r = await drift(["--all", "--backend", `file://${join(dir, "backend")}`, "--backend", `file://${notADir}/sub`, "--format", "json", "--out", out], env);
  await emu.control("DELETE", "/faults");
  expect(r.code).toBe(1);
  const report = JSON.parse(readFileSync(out, "utf8")) as Report;
  const byName = Object.fromEntries(report.stacks.map((s) => [s.stack || "(backend)", s]));
  expect(Object.fromEntries(Object.entries(byName).map(([k, s]) => [k, [s.status, s.error?.kind]]))).toEqual({
    "(backend)": ["failed", "backend"],
    ok: ["clean", undefined],
    drifted: ["drifted", undefined],
    auth: ["failed", "api"],
    down: ["failed", "api"],
    plugin: ["failed", "plugin"],
    sealed: ["failed", "passphrase"],
  });
  expect(byName.sealed.error!.message).toMatch(/incorrect passphrase/);
  expect(byName.drifted.findings.map((f) => f.changelog)).toEqual([[expect.objectContaining({ type: "update", path: ["description"], from: "v1", to: "edited by hand" })]]);
  expect(byName.auth.findings).toEqual([expect.objectContaining({ type: "unreadable", message: expect.stringMatching(/401/) })]);
  expect(byName.down.findings).toEqual([expect.objectContaining({ type: "unreadable", message: expect.stringMatching(/503/) })]);
  expect(byName.plugin.error!.message).toMatch(/cloudplatform/);
  expect(byName["(backend)"].name).toContain("not-a-backend");
  expect(report.summary).toMatchObject({ stacksChecked: 7, stacksDrifted: 1, stacksFailed: 5 });
  expect(r.stderr).toMatch(/7 stacks checked: 1 drifted, 5 failed/);
  for (const secret of [emu.apiKey, SEALED_TOKEN, SEALED_PASSPHRASE]) expect(JSON.stringify(report) + r.stderr).not.toContain(secret);
});

test("without any passphrase, a passphrase stack is reported as such", async () => {
  const env = fleetEnv(emu, dir);
  delete (env as Record<string, string | undefined>).PULUMI_CONFIG_PASSPHRASE;
  const saved = process.env.PULUMI_CONFIG_PASSPHRASE;
  delete process.env.PULUMI_CONFIG_PASSPHRASE;
  try {
    const r = await drift(["--stack", "organization/project-env/ok", "--format", "json"], env);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as Report).stacks[0].error).toMatchObject({ kind: "passphrase", message: expect.stringMatching(/PULUMI_CONFIG_PASSPHRASE/) });
  } finally {
    if (saved !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE = saved;
  }
});
