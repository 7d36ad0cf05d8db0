// The commands the READMEs give run as written: every `sh` block of each TypeScript example's
// README, in order, in one shell from the example's folder, and the README's own five-minute try
// (the block after its marker). They start their own emulator, use a local backend under $HOME
// (a fresh one here) and end by checking the emulator holds nothing (`jq -e '.total == 0'`).
// Each example's first `up` is followed by `preview --refresh --expect-no-changes`: the example's
// objects read back exactly as declared.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { isNodejsProject, ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";

jest.setTimeout(900_000);

const EXAMPLES = join(ROOT, "examples");
const MARKER = "<!-- test/docs/readme-commands.test.ts runs this block as written -->";

/** The body of every fenced `sh` block of a Markdown text, in order. */
export function shBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```\s*$/gm)].map((m) => m[1]);
}

/** The `sh` block right after the marker comment. */
function markedBlock(markdown: string): string {
  const at = markdown.indexOf(MARKER);
  expect(at).toBeGreaterThanOrEqual(0);
  return shBlocks(markdown.slice(at))[0];
}

const examples = readdirSync(EXAMPLES)
  .filter((d) => existsSync(join(EXAMPLES, d, "README.md")) && existsSync(join(EXAMPLES, d, "Pulumi.yaml")) && isNodejsProject(join(EXAMPLES, d)))
  .sort();

/** Runs a script with bash -euo pipefail; background jobs it left (its emulator) are stopped on exit. */
function run(script: string, cwd: string): Promise<{ code: number | null; out: string }> {
  const home = mkdtempSync(join(tmpdir(), "cloudplatform-readme-"));
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
  });
  const wrapped = `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${script}`;
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

test("every TypeScript example has a README with commands", () => {
  const all = readdirSync(EXAMPLES).filter((d) => existsSync(join(EXAMPLES, d, "Pulumi.yaml")));
  for (const d of all) expect(`${d}: ${existsSync(join(EXAMPLES, d, "README.md")) ? "README" : "no README"}`).toBe(`${d}: README`);
  expect(examples).toEqual(expect.arrayContaining(["quickstart", "web-app", "mail-domain", "mail-sandbox", "static-site", "full-stack"]));
  for (const d of examples) {
    const script = shBlocks(readFileSync(join(EXAMPLES, d, "README.md"), "utf8")).join("\n");
    expect([d, /^pulumi up --yes.*\npulumi preview --refresh --expect-no-changes\b/m.test(script)]).toEqual([d, true]);
  }
});

test("README.md: the five-minute try runs as written", async () => {
  const r = await run(markedBlock(readFileSync(join(ROOT, "README.md"), "utf8")), ROOT);
  expect({ code: r.code, tail: r.code === 0 ? "" : r.out.slice(-4000) }).toEqual({ code: 0, tail: "" });
  expect(r.out).toMatch(/Resources:\s+\+ 4 created/); // the stack, the project and its two environments
});

test("docs/state-in-buckets.md: a stack with its state in an emulator bucket runs as written", async () => {
  const r = await run(markedBlock(readFileSync(join(ROOT, "docs", "state-in-buckets.md"), "utf8")), ROOT);
  expect({ code: r.code, tail: r.code === 0 ? "" : r.out.slice(-4000) }).toEqual({ code: 0, tail: "" });
  expect(r.out).toContain(".pulumi/stacks/quickstart/dev.json");
  expect(r.out.trim().split("\n").pop()).toBe("true");
});

test.each(examples)("examples/%s/README.md: its commands run as written and leave nothing", async (name) => {
  const dir = join(EXAMPLES, name);
  const script = shBlocks(readFileSync(join(dir, "README.md"), "utf8")).join("\n");
  const r = await run(script, dir);
  expect({ code: r.code, tail: r.code === 0 ? "" : r.out.slice(-4000) }).toEqual({ code: 0, tail: "" });
  expect(r.out.trim().split("\n").pop()).toBe("true"); // the last check: the emulator holds nothing
});
