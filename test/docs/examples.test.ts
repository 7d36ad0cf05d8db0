// Every example of schema.json's descriptions (what the Pulumi Registry shows, and
// docs/reference repeats) compiles, in each language it is shown in: the TypeScript ones against
// both TypeScript SDKs (`pulumi-cloudplatform/native` and `pulumi-cloudplatform`), the Python ones
// through mypy (strict) against the Python SDK, the Go ones with go vet against sdk/go (a cold
// build of the Pulumi Go SDK takes minutes; the Go SDK test warms the same cache), and the YAML ones
// parsed and checked against the schema (types, functions, inputs, required inputs, outputs read).
// One compilation per language covers every example.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";
import { loadAll, resources } from "../../provider/resources";
import { GO_ENV, goModule, PYTHON, TSC, TSC_STRICT } from "../support/toolchains";
import { blocks, type Fence, yamlProblems } from "./example-blocks";

jest.setTimeout(600_000);
const run = promisify(execFile);

const REFERENCE = join(ROOT, "docs", "reference");
const schema = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8"));
const FENCES: Fence[] = ["typescript", "python", "go", "yaml"];
const names = (m: Map<string, string>) => [...new Set([...m.keys()].map((k) => k.replace(/-\d+$/, "")))].sort();

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

test("every resource and function has an example in TypeScript, Python, Go and YAML, and every resource an import section", () => {
  const all = [...Object.keys(schema.resources), ...Object.keys(schema.functions)].map((t) => t.split(":")[2]).sort();
  for (const fence of FENCES) expect(`${fence}: ${names(blocks(schema, fence)).join(", ")}`).toBe(`${fence}: ${all.join(", ")}`);
  const counts = FENCES.map((f) => blocks(schema, f).size);
  expect(new Set(counts).size).toBe(1);
  loadAll();
  for (const def of Object.values(resources)) {
    const text: string = schema.resources[def.token].description;
    expect(`${def.token}: ${text.includes(`## Import`) && text.includes(`pulumi import ${def.token} `) && text.includes(`'${def.importId.format}'`) ? "import section" : "none"}`)
      .toBe(`${def.token}: import section`);
  }
});

test("each reference page shows its schema examples, YAML included", () => {
  for (const name of names(blocks(schema, "yaml"))) expect(`${name}: ${readFileSync(join(REFERENCE, `${name}.md`), "utf8").includes("{{%") ? "shortcode left" : "clean"}`).toBe(`${name}: clean`);
  for (const fence of FENCES) {
    for (const [key, code] of blocks(schema, fence)) {
      const page = readFileSync(join(REFERENCE, `${key.replace(/-\d+$/, "")}.md`), "utf8");
      expect(`${key} ${fence}: ${page.includes("```" + fence + "\n" + code + "```") ? "shown" : "missing"}`).toBe(`${key} ${fence}: shown`);
    }
  }
});

test("the TypeScript examples compile against both TypeScript SDKs", async () => {
  const ts = join(dir, "ts");
  mkdirSync(ts);
  const files: string[] = [];
  for (const [name, code] of blocks(schema, "typescript")) {
    expect(`${name}: ${code.includes('from "pulumi-cloudplatform/native";') ? "native SDK" : "other"}`).toBe(`${name}: native SDK`);
    writeFileSync(join(ts, `${name}.native.ts`), code);
    writeFileSync(join(ts, `${name}.dynamic.ts`), code.replace('from "pulumi-cloudplatform/native";', 'from "pulumi-cloudplatform";'));
    files.push(`${name}.dynamic.ts`, `${name}.native.ts`);
  }
  expect(await complaints(TSC, [...TSC_STRICT, ...files], { cwd: ts })).toBe("");
});

test("the Python examples pass mypy --strict against the Python SDK", async () => {
  expect(`mypy: ${existsSync(join(ROOT, ".venv", ".mypy")) ? "installed" : "missing; run make python-sdk"}`).toBe("mypy: installed");
  const py = join(dir, "python");
  mkdirSync(py);
  for (const [name, code] of blocks(schema, "python")) writeFileSync(join(py, `${name.replace(/-/g, "_")}.py`), code);
  expect(await complaints(PYTHON, ["-m", "mypy", "--strict", "--no-incremental", "--no-error-summary", "."], { cwd: py })).toBe("");
});

test("the Go examples pass go vet against the Go SDK (sdk/go)", async () => {
  const go = join(dir, "go");
  mkdirSync(go);
  goModule(go, "examples");
  for (const [name, code] of blocks(schema, "go")) {
    // one package per example: each is a whole program
    mkdirSync(join(go, name.replace(/-/g, "_")));
    writeFileSync(join(go, name.replace(/-/g, "_"), "main.go"), code);
  }
  expect(await complaints("go", ["vet", "./..."], { cwd: go, env: GO_ENV })).toBe("");
}, 900_000);

test("the YAML examples parse, and name only types, functions, properties and outputs the schema has", async () => {
  const yaml = join(dir, "yaml");
  mkdirSync(yaml);
  const examples = blocks(schema, "yaml");
  for (const [name, code] of examples) writeFileSync(join(yaml, `${name}.yaml`), code);
  // PyYAML comes with the Python SDK's `pulumi`: one process parses them all.
  const parse = "import json, os, sys, yaml\nd = sys.argv[1]\nprint(json.dumps({f[:-5]: yaml.safe_load(open(os.path.join(d, f))) for f in os.listdir(d)}))";
  const { stdout } = await run(PYTHON, ["-c", parse, yaml], { maxBuffer: 32 * 1024 * 1024 });
  const parsed = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
  expect(Object.keys(parsed).sort()).toEqual([...examples.keys()].sort());
  const problems = [...examples].flatMap(([name, code]) => yamlProblems(name, parsed[name], code, schema));
  expect(problems).toEqual([]);
});

test("the YAML check finds a misspelt type, property, nested property, missing input and output", () => {
  const program = {
    resources: {
      a: { type: "cloudplatform:Projekt", properties: { name: "x" } },
      b: { type: "cloudplatform:Bucket", properties: { colour: "red", corsRules: [{ allowedMethods: ["GET"], allowedOrigins: ["*"], maxAge: 1 }] } },
      c: { type: "cloudplatform:index:DnsZone", properties: {} },
    },
  };
  expect(yamlProblems("t", program, "x: ${b.endpoint} ${b.nope}", schema)).toEqual([
    "t: a: no resource type cloudplatform:Projekt",
    "t: b: no property colour",
    "t: b.corsRules[0]: no property maxAge",
    "t: c: required input name missing",
    "t: b has no output nope",
  ]);
});
