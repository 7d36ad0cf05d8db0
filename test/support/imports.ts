// The import graph of a source tree, for the layout and layers tests: every `.ts` file with the
// project files it imports (type-only imports included) and the packages it imports.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [full] : [];
  });
}

// `import x from`, `import type {..} from`, `export {..} from`, `export * from`, bare `import "x"`,
// dynamic `import("x")` and `require("x")`; comments are stripped first.
const SPECIFIERS = [
  /\b(?:import|export)\s+(?:type\s+)?[^;'"]*?\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\b(?:import|require)\s*\(\s*["']([^"']+)["']\s*\)/g,
];

/** The specifiers a source text imports, in order of appearance per pattern. */
export function specifiersOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'])\/\/.*$/gm, "$1");
  return SPECIFIERS.flatMap((re) => [...code.matchAll(re)].map((m) => m[1]));
}

export interface Imports {
  /** Project files, resolved. */
  local: string[];
  /** Packages and node built-ins, as written. */
  packages: string[];
}

/** What `file` imports; a relative specifier that names no file of `known` is an error. */
export function importsOf(file: string, known: Set<string>, root: string): Imports {
  const local = new Set<string>();
  const packages = new Set<string>();
  for (const spec of specifiersOf(readFileSync(file, "utf8"))) {
    if (!spec.startsWith(".")) {
      packages.add(spec);
      continue;
    }
    const base = resolve(dirname(file), spec);
    const target = [`${base}.ts`, join(base, "index.ts")].find((f) => known.has(f));
    if (!target) throw new Error(`${relative(root, file)} imports ${spec}, which is not a source file of ${root}`);
    local.add(target);
  }
  return { local: [...local], packages: [...packages] };
}

/** Every source file under `root` with its imports. */
export function importGraph(root: string): Map<string, Imports> {
  const files = sources(root);
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, known, root)]));
}
