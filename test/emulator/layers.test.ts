// The emulator's layers point one way: routes -> models -> typed errors. A model never reaches the
// HTTP server, directly or through another file: no fastify, no app, no route vocabulary (http.ts's
// Reply and Ctx), no control API, no idempotent replies. Models give plain values and throw typed
// errors; the routes under routes/ (and GraphQL, S3, the dashboard) make replies of them.
import { join, relative, resolve } from "node:path";
import { type Imports, importGraph, specifiersOf } from "../support/imports";

const ROOT = resolve(__dirname, "../../emulator");
const graph = importGraph(ROOT);
const rel = (f: string) => relative(ROOT, f);

/** Files of the HTTP layer: the server, the route vocabulary, and every surface that registers routes. */
const HTTP_FILE = /^(app|http|control|idempotency|index|cli)\.ts$|^(routes|graphql|dashboard)\/|^s3\/(?!errors\.ts$)/;
const HTTP_PACKAGE = /^(fastify|@fastify\/)/;

/** Why `imports` of a file break the rule: the HTTP files and packages it names. */
function httpImports(imports: Imports): string[] {
  return [...imports.local.map(rel).filter((f) => HTTP_FILE.test(f)), ...imports.packages.filter((p) => HTTP_PACKAGE.test(p))];
}

/** Each HTTP import a model reaches, with the chain of files that leads to it. */
function reachedFromModels(): string[] {
  const out: string[] = [];
  for (const start of graph.keys()) {
    if (!rel(start).startsWith("models/")) continue;
    const seen = new Map<string, string[]>([[start, [rel(start)]]]);
    const queue = [start];
    while (queue.length) {
      const file = queue.shift()!;
      const imports = graph.get(file)!;
      for (const bad of httpImports(imports)) out.push([...seen.get(file)!, bad].join(" -> "));
      for (const next of imports.local) {
        if (seen.has(next) || HTTP_FILE.test(rel(next))) continue;
        seen.set(next, [...seen.get(file)!, rel(next)]);
        queue.push(next);
      }
    }
  }
  return [...new Set(out)].sort();
}

test("the rule catches an HTTP import, a type-only one included", () => {
  const model = join(ROOT, "models/example.ts");
  const imports = (text: string): Imports => {
    const specs = specifiersOf(text);
    return { local: specs.filter((s) => s.startsWith(".")).map((s) => resolve(join(ROOT, "models"), s) + ".ts"), packages: specs.filter((s) => !s.startsWith(".")) };
  };
  expect(rel(model)).toBe("models/example.ts");
  expect(httpImports(imports('import type { Reply } from "../http";'))).toEqual(["http.ts"]);
  expect(httpImports(imports('import type { FastifyInstance } from "fastify";'))).toEqual(["fastify"]);
  expect(httpImports(imports('import { controlRoute } from "../control";\nimport { s3Routes } from "../s3/routes";'))).toEqual(["control.ts", "s3/routes.ts"]);
  // Typed errors, the store and the other models are the models' own layer.
  expect(httpImports(imports('import { s3Error } from "../s3/errors";\nimport { notFound } from "../errors";\nimport { services } from "./lifecycle";'))).toEqual([]);
});

test("no model reaches an HTTP module, directly or through another file", () => {
  expect([...graph.keys()].filter((f) => rel(f).startsWith("models/")).length).toBeGreaterThan(25);
  expect(reachedFromModels()).toEqual([]);
});
