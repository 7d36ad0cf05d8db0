// The provider's layers point one way: the SDK (sdk/) builds on the provider, never the reverse, so
// the dynamic host and the native plugin load none of the SDK's classes.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [full] : [];
  });
}

const SPECIFIER = /\b(?:from|import|require)\s*\(?\s*["']([^"']+)["']/g;

test("nothing under provider/ imports from sdk/", () => {
  const files = sources(join(ROOT, "provider"));
  expect(files.length).toBeGreaterThan(40);
  const upward: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'])\/\/.*$/gm, "$1");
    for (const [, spec] of text.matchAll(SPECIFIER)) {
      const target = spec.startsWith(".") ? relative(ROOT, resolve(dirname(file), spec)) : spec;
      if (/^(sdk(\/|$)|pulumi-cloudplatform(\/native)?$)/.test(target)) upward.push(`${relative(ROOT, file)} -> ${spec}`);
    }
  }
  expect(upward).toEqual([]);
});
