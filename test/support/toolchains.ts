// The compilers that check generated and documented code, set up one way for every test.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";

/** The Python `make python-sdk` installs the SDK and mypy into. */
export const PYTHON = join(ROOT, ".venv", "bin", "python");

export const TSC = join(ROOT, "node_modules", ".bin", "tsc");
/** tsc's arguments for a strict check, without output, of a program's files (given after them). */
export const TSC_STRICT = ["--noEmit", "--strict", "--target", "es2020", "--module", "commonjs", "--moduleResolution", "node", "--types", "node"];

/** The Go SDK's module path (sdk/go), from the schema. */
export const GO_SDK = (JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")).language.go.importBasePath as string).replace(/\/cloudplatform$/, "");

// The module proxy serves these modules; their checksums are in test/go/go.sum.
export const GO_ENV = { ...process.env, GOFLAGS: "-mod=mod -buildvcs=false", GONOSUMDB: "github.com/pulumi/pulumi" };

/**
 * Makes `dir` a Go module named `name` that builds against sdk/go and the Pulumi Go SDK that test/go
 * pins, or `pulumiSdk` (a newer one: the build adds its requirements, with -mod=mod).
 */
export function goModule(dir: string, name: string, pulumiSdk = "v3.248.0"): void {
  writeFileSync(join(dir, "go.mod"), [
    `module ${name}`, "", "go 1.25.11", "",
    `require (\n\t${GO_SDK} v0.0.0\n\tgithub.com/pulumi/pulumi/sdk/v3 ${pulumiSdk}\n)`, "",
    `replace ${GO_SDK} => ${join(ROOT, "sdk", "go")}`, "",
  ].join("\n"));
  copyFileSync(join(ROOT, "test", "go", "go.sum"), join(dir, "go.sum"));
}

/**
 * Makes `dir` a module whose program is examples/<example>/main.go run by test/examples-go/harness.go:
 * the example's `func main` renamed exampleMain and its `pulumi.Run` made `capture`.
 */
export function goExampleModule(dir: string, example: string, pulumiSdk?: string): void {
  goModule(dir, `${example.replace(/[^a-z0-9]/g, "")}harness`, pulumiSdk);
  const source = readFileSync(join(ROOT, "examples", example, "main.go"), "utf8");
  if (!/^func main\(\) \{$/m.test(source) || !/\bpulumi\.Run\(/.test(source)) throw new Error(`examples/${example}/main.go: no func main() calling pulumi.Run`);
  writeFileSync(join(dir, "main.go"), source.replace(/^func main\(\) \{$/m, "func exampleMain() {").replace(/\bpulumi\.Run\(/, "capture("));
  copyFileSync(join(ROOT, "test", "examples-go", "harness.go"), join(dir, "harness.go"));
}
