// The emulator's module layout: no import circles (value and type imports alike), and the layers
// point one way: models never import routes (or the GraphQL surface that sits beside them).
import { join, relative, resolve } from "node:path";
import { importGraph } from "../support/imports";

const ROOT = resolve(__dirname, "../../emulator");

const graph = new Map([...importGraph(ROOT)].map(([f, i]) => [f, i.local]));
const files = [...graph.keys()];
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
