// The emulator's module layout: no import circles (value and type imports alike), and the layers
// point one way: models never import routes (or the GraphQL surface that sits beside them).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "../../emulator");

function sources(dir: string): string[] {
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

function importsOf(file: string, known: Set<string>): string[] {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'])\/\/.*$/gm, "$1");
  const out = new Set<string>();
  for (const re of SPECIFIERS) {
    for (const m of text.matchAll(re)) {
      const spec = m[1];
      if (!spec.startsWith(".")) continue;
      const base = resolve(dirname(file), spec);
      const target = [`${base}.ts`, join(base, "index.ts")].find((f) => known.has(f));
      if (!target) throw new Error(`${relative(ROOT, file)} imports ${spec}, which is not an emulator source file`);
      out.add(target);
    }
  }
  return [...out];
}

const files = sources(ROOT);
const graph = new Map(files.map((f) => [f, importsOf(f, new Set(files))]));
const rel = (f: string) => relative(ROOT, f);

/** Every cycle's member list (Tarjan's strongly connected components of more than one file, or a self-import). */
function circles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (g.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return out;
}

test("the parser sees the emulator's imports, type-only ones included", () => {
  expect(files.length).toBeGreaterThan(20);
  const dns = graph.get(join(ROOT, "models/dns.ts"))!.map(rel);
  expect(dns).toEqual(expect.arrayContaining(["auth.ts", "emu.ts", "errors.ts"])); // `import type` lines
  // And the check does find a circle when there is one.
  expect(circles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]))).toEqual([["a", "b", "c"]]);
});

test("no import circles anywhere in the emulator", () => {
  expect(circles(graph).map((c) => c.map(rel))).toEqual([]);
});

test("models never import routes or the GraphQL surface", () => {
  const wrong = [...graph].flatMap(([from, tos]) =>
    rel(from).startsWith("models/") ? tos.map(rel).filter((t) => /^(routes|graphql)\//.test(t)).map((t) => `${rel(from)} -> ${t}`) : [],
  );
  expect(wrong).toEqual([]);
});
