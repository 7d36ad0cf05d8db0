// The `sh` blocks of the READMEs and guides, run as a reader would: test/docs/readme-commands.test.ts
// (the README's five-minute try, in `make test`) and test/docs/example-commands.test.ts (every
// example's README and docs/state-in-buckets.md, in `make test-full`). They run one at a time, as
// a reader's would in one checkout: several use examples/quickstart and its stack `dev`, whose
// Pulumi.dev.yaml one block's `stack init` writes and its `stack rm` deletes.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { isNodejsProject, ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { exclusive } from "../support/helpers";
import { EXAMPLES } from "../support/stack";

/** The TypeScript examples whose README's commands run: each has a README.md and a Pulumi.yaml. */
export const nodejsExamples = readdirSync(EXAMPLES)
  .filter((d) => existsSync(join(EXAMPLES, d, "README.md")) && existsSync(join(EXAMPLES, d, "Pulumi.yaml")) && isNodejsProject(join(EXAMPLES, d)))
  .sort();

/** The body of every fenced `sh` block of a Markdown text, in order. */
export function shBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```\s*$/gm)].map((m) => m[1]);
}

/** The `sh` block right after the comment that names the test file running it. */
export function markedBlock(markdown: string, testFile: string): string {
  const at = markdown.indexOf(`<!-- test/docs/${testFile} runs this block as written -->`);
  if (at < 0) throw new Error(`no block marked for test/docs/${testFile}`);
  return shBlocks(markdown.slice(at))[0];
}

/**
 * Runs a script with bash -euo pipefail (or, with `errexit: false`, as a terminal runs what is
 * pasted into it: on after a failure), one at a time; background jobs it left (its emulator) are
 * stopped on exit.
 */
export function runScript(script: string, cwd: string, { errexit = true } = {}): Promise<{ code: number | null; out: string }> {
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
  return exclusive(join(ROOT, ".pulumi-state", "shell-blocks.lock"), () => runAlone(script, cwd, errexit), { staleMs: 1_200_000 });
}

function runAlone(script: string, cwd: string, errexit: boolean): Promise<{ code: number | null; out: string }> {
  const home = mkdtempSync(join(tmpdir(), "cloudplatform-readme-"));
  mkdirSync(join(home, "tmp"));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("JEST_") && !k.startsWith("PULUMI_") && !k.startsWith("CLOUDPLATFORM_")) env[k] = v;
  Object.assign(env, {
    // What a reader has: a `pulumi` on PATH, and a home of their own (here a fresh one; the Go and
    // npm caches stay where they are).
    PATH: `${TOOLS_BIN}:${process.env.PATH}`,
    HOME: home,
    GOPATH: process.env.GOPATH ?? join(homedir(), "go"),
    GOCACHE: process.env.GOCACHE ?? join(homedir(), ".cache", "go-build"),
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"),
    // a pyenv-installed `aws` finds its Python through PYENV_ROOT, which defaults to $HOME/.pyenv
    ...(existsSync(join(homedir(), ".pyenv")) && !process.env.PYENV_ROOT ? { PYENV_ROOT: join(homedir(), ".pyenv") } : {}),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // The reader's temporary files (mktemp, Pulumi's ts-node cache, keyed by HOME) go with the home.
    TMPDIR: join(home, "tmp"),
  });
  const wrapped = `${errexit ? "set -euo pipefail\n" : ""}trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${script}`;
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", wrapped], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => {
      rmSync(home, { recursive: true, force: true });
      resolve({ code, out });
    });
  });
}
