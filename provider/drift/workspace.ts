// One Automation API workspace per stack check. A stack checked without its program gets a
// scratch folder holding only a Pulumi.yaml naming its project and a link to the node_modules
// this command runs from: the dynamic provider host (`pulumi-resource-pulumi-nodejs`) resolves
// @pulumi/pulumi, and the state's serialized providers resolve pulumi-cloudplatform, from there.
import { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Where a stack lives and how to reach it. */
export interface Target {
  /** The name passed to the CLI: `org/project/stack` (or `project/stack`). */
  name: string;
  project: string;
  stack: string;
  /** PULUMI_BACKEND_URL for this stack; unset means the CLI's current login. */
  backend?: string;
  /** The project's folder, when known: needed by --plan and --remediate. */
  dir?: string;
}

export interface Runner {
  /** The CLI, found on PATH (PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK skips its version check). */
  command: PulumiCommand;
  /** Extra environment for every command (tests point it at an emulator and a backend). */
  env: Record<string, string>;
}

export async function makeRunner(env: Record<string, string> = {}): Promise<Runner> {
  return { command: await PulumiCommand.get({ skipVersionCheck: true }), env };
}

/** The node_modules folder holding the @pulumi/pulumi this command uses. */
function nodeModulesRoot(): string | undefined {
  try {
    return dirname(dirname(dirname(require.resolve("@pulumi/pulumi/package.json"))));
  } catch {
    return undefined;
  }
}

/** A workspace for `target`: its own folder, or a scratch one removed by `dispose`. */
export async function openWorkspace(runner: Runner, target: Pick<Target, "backend" | "dir" | "project">): Promise<{ ws: LocalWorkspace; dispose(): void }> {
  const envVars: Record<string, string> = { PULUMI_SKIP_UPDATE_CHECK: "true", ...runner.env };
  if (target.backend) envVars.PULUMI_BACKEND_URL = target.backend;
  if (target.dir) {
    const ws = await LocalWorkspace.create({ workDir: target.dir, envVars, pulumiCommand: runner.command });
    return { ws, dispose: () => {} };
  }
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-drift-"));
  // The runtime is never started (--run-program=false); a project file must still name one.
  writeFileSync(join(dir, "Pulumi.yaml"), `name: ${JSON.stringify(target.project || "cloudplatform-drift")}\nruntime: nodejs\n`);
  const modules = nodeModulesRoot();
  if (modules && existsSync(modules)) symlinkSync(modules, join(dir, "node_modules"), "dir");
  const ws = await LocalWorkspace.create({ workDir: dir, envVars, pulumiCommand: runner.command });
  return { ws, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `pulumi <args>` in the workspace's folder with its environment. */
export function runCmd(ws: LocalWorkspace, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return (ws as unknown as { runPulumiCmd(a: string[]): Promise<{ stdout: string; stderr: string }> }).runPulumiCmd(args);
}

/** A backend URL fit for a report: no user, password or query (an S3 URL's credentials). */
export function publicBackend(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//").replace(/\?.*$/, "");
  }
}

/**
 * The stack `name` of the workspace, without `pulumi stack select`: every command passes
 * `--stack`, and a selection would leave a workspace file in PULUMI_HOME for each scratch folder.
 */
export function stackOf(ws: LocalWorkspace, name: string): Stack {
  return Object.assign(Object.create(Stack.prototype) as Stack, { name, workspace: ws, ready: Promise.resolve() });
}
