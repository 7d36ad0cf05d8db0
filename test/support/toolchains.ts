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

/** Makes `dir` a Go module named `name` that builds against sdk/go and the Pulumi Go SDK that test/go pins. */
export function goModule(dir: string, name: string): void {
  writeFileSync(join(dir, "go.mod"), [
    `module ${name}`, "", "go 1.25.11", "",
    `require (\n\t${GO_SDK} v0.0.0\n\tgithub.com/pulumi/pulumi/sdk/v3 v3.248.0\n)`, "",
    `replace ${GO_SDK} => ${join(ROOT, "sdk", "go")}`, "",
  ].join("\n"));
  copyFileSync(join(ROOT, "test", "go", "go.sum"), join(dir, "go.sum"));
}
