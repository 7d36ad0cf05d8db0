// The provider's layers point one way: the SDK (sdk/) builds on the provider, never the reverse, so
// the dynamic host and the native plugin's resources load none of the SDK's classes. The one
// exception is the plugin's Construct, which builds a component as a program would, from the SDK.
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

/** Files that run the SDK on purpose. */
const PROGRAM_LIKE = new Set(["provider/plugin/construct.ts"]);

const SPECIFIER = /\b(?:from|import|require)\s*\(?\s*["']([^"']+)["']/g;

test("nothing under provider/ imports from sdk/", () => {
  const files = sources(join(ROOT, "provider"));
  expect(files.length).toBeGreaterThan(40);
  const upward: string[] = [];
  for (const file of files) {
    if (PROGRAM_LIKE.has(relative(ROOT, file))) continue;
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'])\/\/.*$/gm, "$1");
    for (const [, spec] of text.matchAll(SPECIFIER)) {
      const target = spec.startsWith(".") ? relative(ROOT, resolve(dirname(file), spec)) : spec;
      if (/^(sdk(\/|$)|pulumi-cloudplatform(\/native)?$)/.test(target)) upward.push(`${relative(ROOT, file)} -> ${spec}`);
    }
  }
  expect(upward).toEqual([]);
});
