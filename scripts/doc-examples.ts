// The long descriptions of schema.json, in the Pulumi Registry's convention: each resource's and
// function's text and examples are in provider/schema-docs/<Name>.md, the examples written once in
// PCL (Pulumi's own program language, what `pulumi convert` and `pulumi import` work from) and
// turned into TypeScript, Python, Go and YAML by the code generators of the Pulumi release the
// project builds on (`sdkgen examples`). test/docs/examples.test.ts compiles every one.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Json } from "./json-schema";

/** The checkout, from scripts/ or dist/scripts/. */
export const ROOT = resolve(__dirname, "..", __dirname.includes(join("dist", "scripts")) ? ".." : ".");

export const LANGUAGES = ["typescript", "python", "go", "yaml"] as const;
export type Language = (typeof LANGUAGES)[number];
export type Rendered = Record<Language, string>;

export interface Doc {
  /** What it is: Markdown, before the first example. */
  text: string;
  examples: { title: string; pcl: string }[];
}

/** provider/schema-docs/<name>.md: the text, then one or more `### Title` headings, each followed by a ```pcl program. */
export function readDoc(root: string, name: string): Doc {
  const file = join(root, "provider", "schema-docs", `${name}.md`);
  const source = readFileSync(file, "utf8");
  const [text, ...rest] = source.split(/^### /m);
  const examples = rest.map((part) => {
    const m = /^(.+)\n+```pcl\n([\s\S]*?)^```\s*$/m.exec(part);
    if (!m) throw new Error(`${file}: each "### Title" must be followed by a \`\`\`pcl program`);
    return { title: m[1].trim(), pcl: m[2] };
  });
  if (!text.trim() || examples.length === 0) throw new Error(`${file}: needs a description and at least one example`);
  return { text: text.trim(), examples };
}

/** The key of a program sent to sdkgen: one per example. */
export const exampleKey = (name: string, i: number) => `${name}-${i + 1}`;

/** Every program in every language (`make tools` builds sdkgen and the YAML language host it runs). */
export function renderExamples(root: string, schemaPath: string, sources: Record<string, string>): Record<string, Rendered> {
  const out = execFileSync(join(root, ".tools", "bin", "sdkgen"), ["examples", schemaPath], {
    input: JSON.stringify(sources),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as Record<string, Rendered>;
}

/** An `## Import` section: the `pulumi import` command with the resource's import id format. */
export function importSection(token: string, name: string, importId: { format: string; note?: string }): string {
  return [
    "## Import",
    "",
    `Import id: \`${importId.format}\`.${importId.note ? ` ${importId.note}` : ""}`,
    "",
    "Import through the native plugin (the Python, Go and YAML SDKs, or `pulumi-cloudplatform/native`), by the CLI or the `import` resource option:",
    "",
    "```sh",
    `$ pulumi import ${token} my${name} '${importId.format}'`,
    "```",
  ].join("\n");
}

/** The description schema.json carries: the text, the examples in each language between the Registry's shortcodes, and the import section. */
export function description(doc: Doc, rendered: Rendered[], importText?: string): string {
  const examples = doc.examples.map((ex, i) => [
    "{{% example %}}",
    `### ${ex.title}`,
    "",
    ...LANGUAGES.flatMap((lang) => ["```" + lang, rendered[i][lang].trimEnd(), "```"]),
    "{{% /example %}}",
  ].join("\n"));
  return [doc.text, ["{{% examples %}}", "## Example Usage", "", examples.join("\n\n"), "{{% /examples %}}"].join("\n"), ...(importText ? [importText] : [])].join("\n\n");
}

/**
 * schema.json with each resource's and function's description from its provider/schema-docs page.
 * The examples are generated against the schema itself (its descriptions do not change them).
 */
export function withDescriptions(root: string, schema: Json, importIds: Record<string, { format: string; note?: string }>): Json {
  const entries: [string, Json][] = [...Object.entries<Json>(schema.resources), ...Object.entries<Json>(schema.functions)];
  const docs = new Map(entries.map(([token]) => [token, readDoc(root, token.split(":")[2])]));
  const sources: Record<string, string> = {};
  for (const [token, doc] of docs) doc.examples.forEach((ex, i) => (sources[exampleKey(token.split(":")[2], i)] = ex.pcl));
  const dir = mkdtempSync(join(tmpdir(), "schema-"));
  let rendered: Record<string, Rendered>;
  try {
    writeFileSync(join(dir, "schema.json"), JSON.stringify(schema));
    rendered = renderExamples(root, join(dir, "schema.json"), sources);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const [token, entry] of entries) {
    const name = token.split(":")[2];
    const doc = docs.get(token)!;
    const ids = importIds[token];
    entry.description = description(doc, doc.examples.map((_, i) => rendered[exampleKey(name, i)]), ids && importSection(token, name, ids));
  }
  return schema;
}
