// The Pulumi SDK ranges the package declares start at a release the tests run, and the newest set
// the compatibility suite runs lies inside them: @pulumi/pulumi (package.json's peer range, the
// schema, the examples), Python `pulumi` (sdk/python/setup.py) and the Go SDK (sdk/go/go.mod). The
// pinned set runs the whole suite; the newest set runs test/compat/newest.test.ts (make compat).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../scripts/pulumi-env";

const read = (...p: string[]) => readFileSync(join(ROOT, ...p), "utf8");
const json = (...p: string[]) => JSON.parse(read(...p));
const pkg = json("package.json");
// scripts/gen-schema.ts sets them (PULUMI_NODE_RANGE, PULUMI_PYTHON_RANGE); test/schema.test.ts keeps schema.json its output.
const schema = json("schema.json").language;
const PULUMI_NODE_RANGE = schema.nodejs.dependencies["@pulumi/pulumi"] as string;
const PULUMI_PYTHON_RANGE = schema.python.requires.pulumi as string;

/** The one match of `re` in `text`, or an error naming what was looked for. */
function one(text: string, re: RegExp, what: string): string {
  const m = re.exec(text);
  if (!m) throw new Error(`${what}: not found (${re})`);
  return m[1];
}

const parts = (v: string) => v.replace(/^v/, "").split(".").map(Number);
/** a >= b, for x.y.z versions. */
function atLeast(a: string, b: string): boolean {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return true;
}

// The pinned set: what the whole suite runs.
const PINNED = {
  node: pkg.devDependencies["@pulumi/pulumi"] as string,
  python: one(read("Makefile"), /pip install [^\n]*\bpulumi==([\d.]+)/, "the Makefile's pinned Python pulumi"),
  go: one(read("test", "go", "go.mod"), /github\.com\/pulumi\/pulumi\/sdk\/v3 (v[\d.]+)/, "test/go/go.mod's Go SDK"),
};

// The newest set: make compat's defaults; the Go SDK is the CLI's release (test/compat/newest.test.ts).
const compat = read("scripts", "build-compat.sh");
const NEWEST = {
  node: one(compat, /NODE_SDK="\$\{COMPAT_NODE_SDK:-([\d.]+)\}"/, "build-compat.sh's @pulumi/pulumi"),
  python: one(compat, /PY_SDK="\$\{COMPAT_PYTHON_SDK:-([\d.]+)\}"/, "build-compat.sh's Python pulumi"),
  go: one(compat, /CLI_VERSION="\$\{COMPAT_PULUMI_VERSION:-(v[\d.]+)\}"/, "build-compat.sh's CLI"),
};

describe("@pulumi/pulumi", () => {
  const floor = one(PULUMI_NODE_RANGE, /^\^([\d.]+)$/, "the caret range");

  test("the peer range starts at the pinned release, and holds the newest tested one", () => {
    expect(pkg.peerDependencies["@pulumi/pulumi"]).toBe(PULUMI_NODE_RANGE);
    expect(floor).toBe(PINNED.node);
    expect([parts(NEWEST.node)[0], atLeast(NEWEST.node, floor)]).toEqual([parts(floor)[0], true]);
  });

  test("every example asks for the same range", () => {
    const manifests = readdirSync(join(ROOT, "examples"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith("package.json") && !f.includes("node_modules"));
    const asked = manifests.flatMap((f) => {
      const m = json("examples", f);
      const range = m.dependencies?.["@pulumi/pulumi"] ?? m.devDependencies?.["@pulumi/pulumi"];
      return range === undefined ? [] : [`${f}: ${range}`];
    });
    expect(asked.length).toBeGreaterThan(5);
    expect(asked).toEqual(asked.map((a) => `${a.split(": ")[0]}: ${PULUMI_NODE_RANGE}`));
  });
});

test("Python pulumi: setup.py's range starts at the pinned release, and holds the newest tested one", () => {
  const [, floor, ceiling] = /^>=([\d.]+),<([\d.]+)$/.exec(PULUMI_PYTHON_RANGE) ?? [];
  expect(read("sdk", "python", "setup.py")).toContain(`'pulumi${PULUMI_PYTHON_RANGE}'`);
  expect(floor).toBe(PINNED.python);
  expect([atLeast(NEWEST.python, floor), atLeast(NEWEST.python, ceiling)]).toEqual([true, false]);
});

test("Go SDK: sdk/go's go.mod asks for the pinned release (the oldest it builds with); the newest tested is later", () => {
  const required = one(read("sdk", "go", "go.mod"), /github\.com\/pulumi\/pulumi\/sdk\/v3 (v[\d.]+)/, "sdk/go/go.mod's Go SDK");
  expect(required).toBe(PINNED.go);
  expect(read("tools", "sdkgen", "main.go")).toContain(`"github.com/pulumi/pulumi/sdk/v3 ${PINNED.go}"`);
  expect([parts(NEWEST.go)[0], atLeast(NEWEST.go, required)]).toEqual([3, true]);
});

test("README's table of tested versions names the declared ranges and both sets", () => {
  const section = one(read("README.md"), /\n## Tested versions\n([\s\S]*?)\n## /, "README's Tested versions");
  for (const s of [PULUMI_NODE_RANGE, PULUMI_PYTHON_RANGE, PINNED.node, PINNED.go, NEWEST.node, NEWEST.python, NEWEST.go]) expect(section).toContain(s);
});
