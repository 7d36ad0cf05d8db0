// Every example of docs/reference compiles, in each language it is shown in: the TypeScript ones
// against both TypeScript SDKs (`pulumi-cloudplatform` and `pulumi-cloudplatform/native`), the
// Python ones through mypy (strict) against the Python SDK, the Go ones with go vet against sdk/go
// (a cold build of the Pulumi Go SDK takes minutes; the Go SDK test warms the same cache).
// One compilation per language covers every example.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";
import { GO_ENV, goModule, PYTHON, TSC, TSC_STRICT } from "../support/toolchains";

jest.setTimeout(600_000);
const run = promisify(execFile);

const REFERENCE = join(ROOT, "docs", "reference");

/** The code blocks of one language, by page name. */
function blocks(fence: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of readdirSync(REFERENCE).filter((f) => f.endsWith(".md"))) {
    const text = readFileSync(join(REFERENCE, file), "utf8");
    const found = [...text.matchAll(new RegExp(`^\`\`\`${fence}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => m[1]);
    if (found.length > 1) throw new Error(`${file}: more than one ${fence} example`);
    if (found.length) out.set(file.slice(0, -3), found[0]);
  }
  return out;
}

/** Pages that have an example: every resource and function page. */
const pages = () => readdirSync(REFERENCE).filter((f) => f.endsWith(".md") && f !== "README.md" && f !== "Provider.md").map((f) => f.slice(0, -3)).sort();

let dir: string;
beforeAll(() => {
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
  // Under the repository, so the TypeScript examples resolve pulumi-cloudplatform and @pulumi/pulumi.
  dir = mkdtempSync(join(ROOT, ".pulumi-state", "examples-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The compiler's complaints, or "" when it is content. */
async function complaints(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  try {
    await run(cmd, args, { ...opts, maxBuffer: 32 * 1024 * 1024 });
    return "";
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ""}${e.stderr ?? ""}` || e.message;
  }
}

test("every page shows its example in TypeScript, Python and Go", () => {
  for (const fence of ["ts", "python", "go"]) expect([...blocks(fence).keys()].sort()).toEqual(pages());
});

test("the TypeScript examples compile against both TypeScript SDKs", async () => {
  const ts = join(dir, "ts");
  mkdirSync(ts);
  const files: string[] = [];
  for (const [name, code] of blocks("ts")) {
    expect(`${name}: ${code.includes('from "pulumi-cloudplatform";') ? "dynamic SDK" : "other"}`).toBe(`${name}: dynamic SDK`);
    writeFileSync(join(ts, `${name}.dynamic.ts`), code);
    writeFileSync(join(ts, `${name}.native.ts`), code.replace('from "pulumi-cloudplatform";', 'from "pulumi-cloudplatform/native";'));
    files.push(`${name}.dynamic.ts`, `${name}.native.ts`);
  }
  expect(await complaints(TSC, [...TSC_STRICT, ...files], { cwd: ts })).toBe("");
});

test("the Python examples pass mypy --strict against the Python SDK", async () => {
  expect(`mypy: ${existsSync(join(ROOT, ".venv", ".mypy")) ? "installed" : "missing; run make python-sdk"}`).toBe("mypy: installed");
  const py = join(dir, "python");
  mkdirSync(py);
  for (const [name, code] of blocks("python")) writeFileSync(join(py, `${name}.py`), code);
  expect(await complaints(PYTHON, ["-m", "mypy", "--strict", "--no-incremental", "--no-error-summary", "."], { cwd: py })).toBe("");
});

test("the Go examples pass go vet against the Go SDK (sdk/go)", async () => {
  const go = join(dir, "go");
  mkdirSync(go);
  goModule(go, "examples");
  for (const [name, code] of blocks("go")) {
    // one package per example: each is a whole program
    mkdirSync(join(go, name));
    writeFileSync(join(go, name, "main.go"), code);
  }
  expect(await complaints("go", ["vet", "./..."], { cwd: go, env: GO_ENV })).toBe("");
}, 900_000);
