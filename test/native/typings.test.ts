// Outputs that can be null are typed so in every SDK: a program that uses one as if it were always
// there does not compile (TypeScript, both SDKs) and is typed Optional (Python); the Python wheel
// carries its README.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";
import { PYTHON, TSC, TSC_STRICT } from "../support/toolchains";

jest.setTimeout(120_000);
const run = promisify(execFile);

let dir: string;
beforeAll(() => {
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
  // Inside the checkout, so `pulumi-cloudplatform` resolves as a program's dependency does.
  dir = mkdtempSync(join(ROOT, ".pulumi-state", "typings-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("TypeScript: using a nullable output as always present fails to compile, on both SDKs; handling it compiles", async () => {
  const lines = [
    'import * as native from "pulumi-cloudplatform/native";',
    'import * as dynamic from "pulumi-cloudplatform";',
    'const env = new native.Environment("a", { projectId: "p", name: "production" });',
    'const svc = new native.Service("s", { environmentId: "e", name: "s", type: "WEB", image: "nginx" });',
    'const bucket = new native.Bucket("b", {});',
    'const denv = new dynamic.Environment("d", { projectId: "p", name: "production" });',
    'const dsvc = new dynamic.Service("ds", { environmentId: "e", name: "s", type: "WEB", image: "nginx" });',
    "export const e1 = env.kind.apply((k) => k.toUpperCase());", // line 8
    "export const e2 = svc.url.apply((u) => u.length);",
    "export const e3 = bucket.publicBaseUrl.apply((u) => u.startsWith(\"http\"));",
    "export const e4 = denv.kind.apply((k) => k.toUpperCase());",
    "export const e5 = dsvc.url.apply((u) => u.length);", // line 12
    'export const ok1 = env.kind.apply((k) => k?.toUpperCase() ?? "none");',
    "export const ok2 = denv.kind.apply((k) => (k === null ? \"none\" : k.toUpperCase()));",
    "export const ok3 = svc.name.apply((n) => n.toUpperCase());",
    "export const ok4 = dsvc.name.apply((n) => n.toUpperCase());",
  ];
  const file = join(dir, "nullable.ts");
  writeFileSync(file, lines.join("\n") + "\n");
  const result = await run(TSC, [...TSC_STRICT, file], { cwd: ROOT }).then(() => "", (err: { stdout: string }) => err.stdout);
  const errors = [...result.matchAll(/nullable\.ts\((\d+),\d+\): error (TS\d+): '(\w)' is possibly '(null|undefined)'/g)].map((m) => `${m[1]} ${m[2]} ${m[4]}`);
  expect(errors).toEqual(["8 TS18048 undefined", "9 TS18048 undefined", "10 TS18048 undefined", "11 TS18047 null", "12 TS18047 null"]);
  // nothing else fails: the handled uses compile
  expect(result.split("\n").filter((l) => l.includes("error TS")).length).toBe(5);
});

test("Python: nullable outputs are Optional; the wheel's description is the SDK's README", async () => {
  expect(`${PYTHON}: ${existsSync(PYTHON) ? "present" : "missing; run make python-sdk"}`).toBe(`${PYTHON}: present`);
  const wheel = readdirSync(join(ROOT, "dist", "python")).find((f) => f.endsWith(".whl"))!;
  const script = [
    "import json, sys, typing, zipfile",
    "import pulumi_cloudplatform as c",
    "hint = lambda cls, prop: str(typing.get_type_hints(getattr(cls, prop).fget)['return'])",
    "out = {k: hint(*v) for k, v in {'kind': (c.Environment, 'kind'), 'url': (c.Service, 'url'), 'publicBaseUrl': (c.Bucket, 'public_base_url'), 'name': (c.Service, 'name')}.items()}",
    "z = zipfile.ZipFile(sys.argv[1])",
    "meta = z.read(next(n for n in z.namelist() if n.endswith('METADATA'))).decode()",
    "out['readme'] = '# pulumi_cloudplatform' in meta and 'pulumi import' in meta",
    "print(json.dumps(out))",
  ].join("\n");
  const { stdout } = await run(PYTHON, ["-c", script, join(ROOT, "dist", "python", wheel)]);
  expect(JSON.parse(stdout)).toEqual({
    kind: "pulumi.output.Output[typing.Optional[str]]",
    url: "pulumi.output.Output[typing.Optional[str]]",
    publicBaseUrl: "pulumi.output.Output[typing.Optional[str]]",
    name: "pulumi.output.Output[str]",
    readme: true,
  });
});
