// Runs Pulumi programs with the toolchain `make tools` built: the file backend, a passphrase,
// an isolated PULUMI_HOME, no update checks and no plugin downloads. Shared by the demo, the
// tests and the benches.
import { LocalWorkspace, PulumiCommand, type PulumiFn, type Stack } from "@pulumi/pulumi/automation";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(__dirname, "..", __dirname.includes(`${join("dist", "scripts")}`) ? ".." : ".");
export const TOOLS_BIN = join(ROOT, ".tools", "bin");

export interface StackHandle {
  stack: Stack;
  /** The file backend's folder (PULUMI_BACKEND_URL is file:// this). */
  backendDir: string;
  /** The stack's state exactly as the backend stores it (secrets encrypted). */
  rawState(): string;
  /** Removes the stack and its backend; resources must already be destroyed. */
  dispose(): Promise<void>;
}

export interface OpenStackOptions {
  /** The program's folder; with `program`, the inline program's work folder. */
  programDir: string;
  /** An inline program (Automation API), run in this process, with this project name. */
  program?: { projectName: string; run: PulumiFn };
  stackName: string;
  /** Environment for the CLI and the provider (CLOUDPLATFORM_* and the like). */
  env?: Record<string, string>;
  /** Stack config; a plain string is a non-secret value. */
  config?: Record<string, string | { value: string; secret?: boolean }>;
  /** Keep the backend here instead of a fresh temporary folder. */
  stateDir?: string;
}

export async function openStack(opts: OpenStackOptions): Promise<StackHandle> {
  const state = opts.stateDir ?? mkdtempSync(join(tmpdir(), "cloudplatform-pulumi-"));
  const backend = join(state, "backend");
  const home = join(state, "home");
  mkdirSync(backend, { recursive: true });
  mkdirSync(home, { recursive: true });
  const envVars: Record<string, string> = {
    PATH: `${TOOLS_BIN}:${process.env.PATH ?? ""}`,
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    ...opts.env,
  };
  const pulumiCommand = await PulumiCommand.get({ root: join(ROOT, ".tools"), skipVersionCheck: true });
  const workspace = { envVars, pulumiHome: home, pulumiCommand, secretsProvider: "passphrase" };
  const stack = opts.program
    ? await LocalWorkspace.createOrSelectStack({ stackName: opts.stackName, projectName: opts.program.projectName, program: opts.program.run }, { ...workspace, workDir: opts.programDir })
    : await LocalWorkspace.createOrSelectStack({ stackName: opts.stackName, workDir: opts.programDir }, workspace);
  if (opts.config) {
    await stack.setAllConfig(
      Object.fromEntries(Object.entries(opts.config).map(([k, v]) => [k, typeof v === "string" ? { value: v } : v])),
    );
  }
  return {
    stack,
    backendDir: backend,
    rawState: () => readTree(join(backend, ".pulumi", "stacks")),
    async dispose() {
      try {
        await stack.workspace.removeStack(opts.stackName, { force: true });
      } finally {
        if (!opts.stateDir) rmSync(state, { recursive: true, force: true });
      }
    },
  };
}

function readTree(dir: string): string {
  let out = "";
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    out += entry.isDirectory() ? readTree(p) : entry.name.endsWith(".json") ? readFileSync(p, "utf8") : "";
  }
  return out;
}
