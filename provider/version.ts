// The package's version, read from its package.json: the plugin reports it, schema.json carries it,
// and the generated SDK asks for it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

let cached: string | undefined;

/** Walks up from this file (in provider/ or dist/provider/) to the package's own package.json. */
export function packageVersion(): string {
  if (cached) return cached;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (pkg.name === "pulumi-cloudplatform") return (cached = String(pkg.version));
    } catch {
      // no package.json here; keep walking up
    }
    if (dirname(dir) === dir) throw new Error("pulumi-cloudplatform: cannot find the package's package.json");
  }
}
