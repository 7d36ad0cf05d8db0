// Runs Pulumi programs with the toolchain `make tools` built: the file backend, a passphrase,
// an isolated PULUMI_HOME, no update checks and no plugin downloads. Shared by the demo, the
// tests and the benches.
import type { PulumiCommand, PulumiFn, Stack } from "@pulumi/pulumi/automation";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import Module = require("node:module");
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DiyState } from "./diy-state";

export const ROOT = resolve(__dirname, "..", __dirname.includes(`${join("dist", "scripts")}`) ? ".." : ".");
export const TOOLS_BIN = join(ROOT, ".tools", "bin");
/** The passphrase of every stack opened here (unless its `env` names another). */
export const PASSPHRASE = "cloudplatform-local";

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
  /**
   * Run the TypeScript program of `programDir` (its index.ts) in this Node process, through the
   * Automation API's inline mode, rather than in a Node process the CLI starts for each operation.
   * The folder's Pulumi.yaml still names the project and its plugins, and commands run with
   * `runPulumiCmd` still start the program as the CLI does.
   */
  inProcess?: boolean;
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
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    ...opts.env,
  };
  // An inline program of the caller's shares the caller's @pulumi/pulumi. Otherwise the Automation
  // API is the one Node's own loader keeps: loaded once per process, not once per test file.
  const auto: Automation = opts.program ? require("@pulumi/pulumi/automation") : inProcess.automation();
  // `pulumi version` once per process, not once per stack.
  const pulumiCommand = await (commands[opts.program ? "caller" : "node"] ??= auto.PulumiCommand.get({ root: join(ROOT, ".tools"), skipVersionCheck: true }));
  const workspace = { envVars, pulumiHome: home, pulumiCommand, secretsProvider: "passphrase" };
  const runs = opts.program ? engineClients(require) : opts.inProcess ? engineClients(inProcess.loader(ROOT).require) : undefined;
  const source = opts.program ?? (opts.inProcess ? inProcess.program(opts.programDir) : undefined);
  const program = source && runs ? { ...source, run: runs.tracked(source.run) } : undefined;
  const fileBackend = envVars.PULUMI_BACKEND_URL === `file://${backend}`;
  // A backend made here for this stack alone: it has no stack to select, and it goes with its folder.
  const ownBackend = fileBackend && !opts.stateDir;
  const open = (ownBackend ? auto.LocalWorkspace.createStack : auto.LocalWorkspace.createOrSelectStack).bind(auto.LocalWorkspace);
  const stack = program
    ? await open({ stackName: opts.stackName, projectName: program.projectName, program: program.run }, { ...workspace, workDir: opts.programDir })
    : await open({ stackName: opts.stackName, workDir: opts.programDir }, workspace);
  if (opts.inProcess) inProcess.giveEnv(stack, opts.env ?? {});
  if (runs) runs.closedAfterEachOperation(stack);
  if (fileBackend) readsBackendFiles(stack, new DiyState(backend, program?.projectName ?? projectName(opts.programDir), envVars.PULUMI_CONFIG_PASSPHRASE));
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
        // In a backend of its own, `stack rm` would only also remove the stack's config file.
        if (ownBackend) for (const ext of ["yaml", "yml"]) rmSync(join(opts.programDir, `Pulumi.${opts.stackName}.${ext}`), { force: true });
        else await stack.workspace.removeStack(opts.stackName, { force: true });
      } finally {
        if (!opts.stateDir) rmSync(state, { recursive: true, force: true });
      }
    },
  };
}

type Automation = Pick<typeof import("@pulumi/pulumi/automation"), "LocalWorkspace" | "PulumiCommand">;

const OPERATIONS = ["up", "preview", "refresh", "previewRefresh", "destroy", "import"] as const;

interface GrpcClient { close(): void }
interface RunSettings { monitor?: GrpcClient; engine?: GrpcClient }
const fixedSdks = new WeakMap<object, true>();

/**
 * The engine's gRPC clients of the programs this process runs. The SDK's inline mode (@pulumi/pulumi
 * 3.248) never closes a run's monitor and engine clients (its `disconnect` closes those of a
 * program's own process, not those kept in an inline run's store), and gRPC shares one connection
 * (a subchannel) among every channel to an address. A call a program makes after its engine has
 * gone (a preview that failed while the program still registered resources) puts that connection
 * into a reconnect backoff (up to two minutes); when the system hands the same port to a later
 * operation's engine, that operation's program is given the backing-off connection and its first call
 * fails at once: `14 UNAVAILABLE: No connection established` (test/support/in-process.test.ts).
 * So the SDK's channels each get connections of their own, and each run's clients are closed when
 * its operation ends.
 */
export function engineClients(sdkRequire: NodeJS.Require): {
  tracked(run: PulumiFn): PulumiFn;
  closedAfterEachOperation(stack: Stack): void;
} {
  const settings = sdkRequire("@pulumi/pulumi/runtime/settings") as { grpcClientOptions?: Record<string, unknown> };
  if (!fixedSdks.has(settings)) {
    if (!settings.grpcClientOptions) throw new Error("@pulumi/pulumi/runtime/settings no longer has grpcClientOptions: the in-process programs' gRPC clients need another fix (see engineClients in scripts/pulumi-env.ts)");
    settings.grpcClientOptions["grpc.use_local_subchannel_pool"] = 1;
    fixedSdks.set(settings, true);
  }
  const state = sdkRequire("@pulumi/pulumi/runtime/state") as { getStore(): { settings: RunSettings } };
  const open = new Set<RunSettings>();
  const closeAll = () => {
    for (const s of open) for (const client of [s.monitor, s.engine]) client?.close();
    open.clear();
  };
  return {
    // The run's store holds the clients it creates (lazily, after this returns): kept to be closed.
    tracked: (run) => async () => {
      open.add(state.getStore().settings);
      return run();
    },
    closedAfterEachOperation(stack) {
      for (const op of OPERATIONS) {
        const run = (stack[op] as (...a: unknown[]) => Promise<unknown>).bind(stack);
        (stack as unknown as Record<string, unknown>)[op] = (...args: unknown[]) => run(...args).finally(closeAll);
      }
    },
  };
}

const commands: { caller?: Promise<PulumiCommand>; node?: Promise<PulumiCommand> } = {};

/**
 * The outputs and the summary the Automation API fetches after each operation come from the file
 * backend's files rather than three more CLI runs (see DiyState); the CLI still answers whatever
 * those files hold that DiyState cannot read.
 */
function readsBackendFiles(stack: Stack, files: DiyState): void {
  const ws = stack.workspace as unknown as { stackOutputs(name: string): Promise<unknown> };
  const cliOutputs = ws.stackOutputs.bind(ws);
  ws.stackOutputs = async (name) => files.outputs(name) ?? cliOutputs(name);
  const cliInfo = stack.info.bind(stack);
  stack.info = async (showSecrets) => files.lastUpdate(stack.name) ?? cliInfo(showSecrets);
}

/** The project's name, from the Pulumi.yaml in `dir`. */
function projectName(dir: string): string {
  const name = /^name:\s*(\S+)/m.exec(readFileSync(join(dir, "Pulumi.yaml"), "utf8"))?.[1];
  if (!name) throw new Error(`${join(dir, "Pulumi.yaml")}: no project name`);
  return name;
}

/** Whether the project in `dir` is a Node.js program (Pulumi.yaml's runtime, short or long form). */
export function isNodejsProject(dir: string): boolean {
  return /^runtime:\s*(\n\s+name:\s*)?nodejs\b/m.test(readFileSync(join(dir, "Pulumi.yaml"), "utf8"));
}

/** A Node.js program whose one TypeScript source is index.ts: what `inProcess` can run. */
export function runsInProcess(dir: string): boolean {
  const sources = readdirSync(dir).filter((f) => /\.tsx?$/.test(f));
  return sources.length === 1 && sources[0] === "index.ts" && isNodejsProject(dir);
}

/**
 * Programs run in this process. They and the Automation API that serves them are loaded by Node's
 * own module loader even under a test runner (whose loader keeps its own module registry), so a
 * program resolves its packages from its folder and shares @pulumi/pulumi with the Automation API,
 * and a dynamic provider is serialized by reference, exactly as in the program's own process.
 */
const inProcess = {
  loader(dir: string): { require: NodeJS.Require; compile(code: string, file: string): unknown } {
    const NodeModule = Module as unknown as {
      new (id: string): { filename: string; paths: string[]; exports: unknown; require: NodeJS.Require; _compile(code: string, file: string): void };
      _nodeModulePaths(dir: string): string[];
    };
    const host = (file: string) => {
      const m = new NodeModule(file);
      m.filename = file;
      m.paths = NodeModule._nodeModulePaths(dir);
      return m;
    };
    const requirer = host(join(dir, "[loader]"));
    return {
      require: ((id: string) => requirer.require(id)) as NodeJS.Require,
      compile(code, file) {
        const m = host(file);
        m._compile(code, file);
        return m.exports;
      },
    };
  },
  automation(): Automation {
    return inProcess.loader(ROOT).require("@pulumi/pulumi/automation");
  },
  /**
   * A program's own process would inherit the environment given to the CLI (the SDK's functions
   * run in the program and read CLOUDPLATFORM_*): it is this process's for each operation's length.
   */
  giveEnv(stack: Stack, env: Record<string, string>): void {
    // PATH is how the CLI finds its plugins; this process's own children keep theirs.
    const { PATH: _cliPath, ...programEnv } = env;
    for (const op of OPERATIONS) {
      const run = (stack[op] as (...a: unknown[]) => Promise<unknown>).bind(stack);
      (stack as unknown as Record<string, unknown>)[op] = (...args: unknown[]) => inProcess.withEnv(programEnv, () => run(...args));
    }
  },
  envDepth: 0,
  envSaved: new Map<string, string | undefined>(),
  realProcess: undefined as NodeJS.Process | undefined,
  async withEnv<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
    // The program's process.env, not a test runner's copy of it.
    const real = (inProcess.realProcess ??= inProcess.loader(ROOT).require("process") as NodeJS.Process);
    inProcess.envDepth++;
    for (const [k, v] of Object.entries(env)) {
      if (!inProcess.envSaved.has(k)) inProcess.envSaved.set(k, real.env[k]);
      real.env[k] = v;
    }
    try {
      return await fn();
    } finally {
      if (--inProcess.envDepth === 0) {
        for (const [k, v] of inProcess.envSaved) {
          if (v === undefined) delete real.env[k];
          else real.env[k] = v;
        }
        inProcess.envSaved.clear();
      }
    }
  },
  /** The project's name (from Pulumi.yaml) and its index.ts, run afresh each time. */
  program(dir: string): { projectName: string; run: PulumiFn } {
    const file = join(dir, "index.ts");
    if (!runsInProcess(dir)) throw new Error(`${dir}: only a Node.js program whose one source is index.ts runs in this process`);
    const loader = inProcess.loader(dir);
    const ts: typeof import("typescript") = loader.require("typescript");
    // Tests rewrite a program between operations (code `pulumi import` generated): read it each run.
    let source = "";
    let js = "";
    const run = async () => {
      const now = readFileSync(file, "utf8");
      if (now !== source) {
        source = now;
        js = ts.transpileModule(source, {
          fileName: file,
          compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
        }).outputText;
      }
      return loader.compile(js, file) as Record<string, unknown>;
    };
    return { projectName: projectName(dir), run };
  },
};

function readTree(dir: string): string {
  let out = "";
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    out += entry.isDirectory() ? readTree(p) : entry.name.endsWith(".json") ? readFileSync(p, "utf8") : "";
  }
  return out;
}
