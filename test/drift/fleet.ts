// A fleet of drift-test stacks on one file backend: test/programs/drift-app on the dynamic and the
// native SDK (TypeScript), and the same stack made by test/python/drift.py and test/go/drift
// through the Automation API. cloudplatform-drift then checks them all without their programs.
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { LocalWorkspace, PulumiCommand } from "@pulumi/pulumi/automation";
import { openStack, ROOT, TOOLS_BIN, type StackHandle } from "../../scripts/pulumi-env";
import type { CloudPlatformClient } from "../../provider/client";
import type { TestEmulator } from "../support/emulator";
import { PROGRAMS } from "../support/stack";
import { GO_ENV, PYTHON } from "../support/toolchains";

export const run = promisify(execFile);
export const CLI = join(ROOT, "dist", "provider", "drift", "cli.js");
export const PASSPHRASE = "cloudplatform-local";

export interface Outputs {
  projectId: string;
  serviceId: string;
  zoneId: string;
  recordId: string;
  bucket: string;
}

export interface FleetStack {
  /** The stack's name as the backend lists it. */
  name: string;
  project: string;
  outputs: Outputs;
  /** The TypeScript stacks' handle (their program folder is test/programs/drift-app). */
  handle?: StackHandle;
}

/** The environment every command of the fleet runs with: its backend, home, passphrase, emulator, plugin and CLI on PATH. */
export function fleetEnv(emu: TestEmulator, dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`,
    HOME: process.env.HOME ?? dir,
    PULUMI_ROOT: join(ROOT, ".tools"),
    PULUMI_HOME: join(dir, "home"),
    PULUMI_BACKEND_URL: `file://${join(dir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    CLOUDPLATFORM_BASE_URL: emu.baseUrl,
    CLOUDPLATFORM_API_KEY: emu.apiKey,
    ...extra,
  };
}

/** A TypeScript stack of test/programs/drift-app on `sdk`. */
export async function tsStack(emu: TestEmulator, dir: string, name: string, sdk: "dynamic" | "native", token: string): Promise<FleetStack> {
  const env = fleetEnv(emu, dir);
  const handle = await openStack({
    programDir: join(PROGRAMS, "drift-app"), stackName: name, stateDir: dir, env,
    config: { sdk, tag: `${name}${process.pid}`, token: { value: token, secret: true } },
  });
  const up = await handle.stack.up();
  const outputs = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value])) as unknown as Outputs;
  return { name: `organization/drift-app/${name}`, project: "drift-app", outputs, handle };
}

/** The Python (test/python/drift.py) or Go (test/go/drift) stack, made through the Automation API. */
export async function otherStack(emu: TestEmulator, dir: string, lang: "python" | "go", token: string): Promise<FleetStack> {
  const work = join(dir, `work-${lang}`);
  mkdirSync(work, { recursive: true });
  const env = { ...fleetEnv(emu, dir), WORK_DIR: work, STACK: lang, TAG: `${lang}${process.pid}`, TOKEN: token };
  let cmd: [string, string[]];
  if (lang === "python") cmd = [PYTHON, [join(ROOT, "test", "python", "drift.py")]];
  else {
    const bin = join(dir, "go-drift");
    await run("go", ["build", "-o", bin, "./drift"], { cwd: join(ROOT, "test", "go"), env: GO_ENV, timeout: 900_000 });
    cmd = [bin, []];
  }
  const { stdout } = await run(cmd[0], cmd[1], { env: { ...env, PYTHONPATH: join(ROOT, "test", "python") }, timeout: 600_000 });
  const project = lang === "python" ? "drift-py" : "drift-go";
  return { name: `organization/${project}/${lang}`, project, outputs: JSON.parse(stdout.trim().split("\n").pop()!) };
}

/** The out-of-band changes every fleet stack gets; the project's description is under ignoreChanges. */
export async function makeDrift(emu: TestEmulator, api: CloudPlatformClient, o: Outputs, newToken: string): Promise<void> {
  await api.patch(`/v1/services/${o.serviceId}/env-vars`, { envVars: [{ key: "MODE", value: "debug" }, { key: "TOKEN", value: newToken, secret: true }] });
  await api.patch(`/v1/services/${o.serviceId}`, { source: { image: "nginx:1.28" } });
  await api.delete(`/v1/dns-records/${o.recordId}`);
  await api.put(`/v1/workspaces/${emu.workspaceId}/buckets/${o.bucket}/cors`, { rules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://evil.example.com"] }] });
  await api.patch(`/v1/projects/${o.projectId}`, { description: "edited by hand" });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs cloudplatform-drift as users do (node on the built command), never throwing on its exit code. */
export async function drift(args: string[], env: Record<string, string>, cwd = ROOT): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env, cwd, timeout: 600_000, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    if (typeof err.code !== "number") throw err;
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** The raw state of every stack on the backend: what must not change when drift is checked. */
export function backendState(dir: string): string {
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith(".json") ? [`${e.name}:${readFileSync(join(d, e.name), "utf8")}`] : []);
  return walk(join(dir, "backend", ".pulumi", "stacks")).sort().join("\n");
}

/** Destroys a stack (its program not run) and removes it from the backend. */
export async function destroyStack(emu: TestEmulator, dir: string, s: FleetStack): Promise<void> {
  if (s.handle) {
    await s.handle.stack.destroy();
    await s.handle.stack.workspace.removeStack(s.handle.stack.name, { force: true });
    return;
  }
  const work = join(dir, `destroy-${s.project}`);
  mkdirSync(work, { recursive: true });
  const ws = await LocalWorkspace.create({
    workDir: work, envVars: fleetEnv(emu, dir), pulumiHome: join(dir, "home"),
    pulumiCommand: await PulumiCommand.get({ root: join(ROOT, ".tools"), skipVersionCheck: true }),
    projectSettings: { name: s.project, runtime: "nodejs" },
  });
  const stack = await (await import("@pulumi/pulumi/automation")).Stack.select(s.name, ws);
  await stack.destroy();
  await ws.removeStack(s.name, { force: true });
}
