// Runs the Pulumi CLI for a stack check: `pulumi` from PATH, started directly. The Automation API
// is not loaded for a check (its modules cost about 0.6 s of CPU at each start, and it runs
// `pulumi version` before anything else); --plan and --remediate, which run programs, load it.
// A stack checked without its program gets a scratch folder holding only a Pulumi.yaml naming its
// project and a link to the node_modules this command runs from: the dynamic provider host
// (`pulumi-resource-pulumi-nodejs`) resolves @pulumi/pulumi, and the state's serialized providers
// resolve pulumi-cloudplatform, from there.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Where a stack lives and how to reach it. */
export interface Target {
  /** `org/project/stack`: what the report shows and what the CLI is given. */
  name: string;
  project: string;
  stack: string;
  /** PULUMI_BACKEND_URL for this stack; unset means the CLI's current login. */
  backend?: string;
  /** The project's folder, when known: needed by --plan and --remediate. */
  dir?: string;
}

export interface Runner {
  /** The CLI: `pulumi` on PATH unless a path is given. */
  pulumi: string;
  /** Extra environment for every command (tests point it at an emulator and a backend). */
  env: Record<string, string>;
}

export function makeRunner(env: Record<string, string> = {}): Runner {
  return { pulumi: "pulumi", env };
}

/** A failed CLI command; its message reads as the Automation API's (`code`, `stdout`, `stderr`). */
export class CliError extends Error {
  constructor(readonly code: number, readonly stdout: string, readonly stderr: string) {
    super(`code: ${code}\n stdout: ${stdout}\n stderr: ${stderr}\n`);
  }
}

/** The environment of a command on `backend`. */
export function envFor(runner: Runner, backend?: string): Record<string, string> {
  const env: Record<string, string> = { PULUMI_SKIP_UPDATE_CHECK: "true", ...runner.env };
  if (backend) env.PULUMI_BACKEND_URL = backend;
  return env;
}

/** Runs `pulumi <args>` in `cwd`; rejects with a CliError on a non-zero exit. */
export function runPulumi(runner: Runner, args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(runner.pulumi, [...args, "--non-interactive"], {
      cwd: opts.cwd,
      // PULUMI_DEBUG_COMMANDS makes `--event-log` available, as the Automation API does.
      env: { ...process.env, ...opts.env, PULUMI_DEBUG_COMMANDS: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => reject(new CliError(-2, "", `error: could not run ${runner.pulumi}: ${e.message}`)));
    child.on("close", (code) => {
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      if (code === 0) resolve({ stdout, stderr });
      else reject(new CliError(code ?? -1, stdout, stderr));
    });
  });
}

/** The node_modules folder holding the @pulumi/pulumi this command uses. */
function nodeModulesRoot(): string | undefined {
  try {
    return dirname(dirname(dirname(require.resolve("@pulumi/pulumi/package.json"))));
  } catch {
    return undefined;
  }
}

export interface Workspace {
  /** The folder commands run in. */
  dir: string;
  env: Record<string, string>;
  dispose(): void;
}

/** A folder for commands on `target`: its own, or a scratch one removed by `dispose`. */
export function openWorkspace(runner: Runner, target: Pick<Target, "backend" | "dir" | "project">): Workspace {
  const env = envFor(runner, target.backend);
  if (target.dir) return { dir: target.dir, env, dispose: () => {} };
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-drift-"));
  // The runtime is never started (--run-program=false); a project file must still name one.
  writeFileSync(join(dir, "Pulumi.yaml"), `name: ${JSON.stringify(target.project || "cloudplatform-drift")}\nruntime: nodejs\n`);
  const modules = nodeModulesRoot();
  if (modules && existsSync(modules)) symlinkSync(modules, join(dir, "node_modules"), "dir");
  return { dir, env, dispose: () => rmSync(dir, { recursive: true, force: true }) };
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

/** The backends whose stacks all belong to the organization `organization` (the DIY backends). */
const DIY = /^(file|s3|gs|azblob|postgres|postgresql):\/\//i;

/**
 * The backend URL commands on `backend` use: the one given, else PULUMI_BACKEND_URL, else the CLI's
 * current login (PULUMI_HOME's credentials.json); undefined when none can be found.
 */
export function effectiveBackend(runner: Runner, backend?: string): string | undefined {
  const env = { ...process.env, ...runner.env };
  if (backend) return backend;
  if (env.PULUMI_BACKEND_URL) return env.PULUMI_BACKEND_URL;
  try {
    const home = env.PULUMI_HOME || join(env.HOME || homedir(), ".pulumi");
    return (JSON.parse(readFileSync(join(home, "credentials.json"), "utf8")) as { current?: string }).current || undefined;
  } catch {
    return undefined;
  }
}

/** True for a backend whose only organization is `organization` (file, S3, GCS, Azure, Postgres). */
export function isDiyBackend(url: string | undefined): boolean {
  return !!url && DIY.test(url);
}
