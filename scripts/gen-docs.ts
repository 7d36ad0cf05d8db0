// Builds the reference docs, one Markdown page per resource and function, from schema.json.
// `make schema` writes them into docs/reference/; test/schema.test.ts fails when they are stale.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Json } from "./json-schema";

const PKG = "cloudplatform";

interface Page {
  file: string;
  text: string;
}

const nameOf = (token: string) => token.split(":")[2];

/** A property's type as a reader of the TypeScript SDK sees it. */
function typeText(spec: Json, schema: Json): string {
  if (spec.$ref) {
    const ref = String(spec.$ref);
    if (ref.startsWith("#/types/")) {
      const name = nameOf(ref.slice("#/types/".length));
      return `[${name}](#${name.toLowerCase()})`;
    }
    if (ref.startsWith("#/resources/")) {
      const name = nameOf(ref.slice("#/resources/".length));
      return `[${name}](${name}.md)`;
    }
    return "any";
  }
  if (spec.type === "array") return `${typeText(spec.items ?? {}, schema)}[]`;
  if (spec.type === "object") return `map of ${typeText(spec.additionalProperties ?? {}, schema)}`;
  return spec.type ?? "any";
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n+/g, " ").trim();

function table(props: Json, required: string[] | undefined, schema: Json, opts: { replaces?: boolean } = {}): string {
  const names = Object.keys(props ?? {}).sort();
  if (names.length === 0) return "_None._\n";
  const rows = names.map((n) => {
    const p = props[n];
    const flags = [
      ...(required ? [required.includes(n) ? "required" : "optional"] : []),
      ...(p.secret ? ["secret"] : []),
      ...(opts.replaces && p.replaceOnChanges ? ["replaces"] : []),
    ];
    return `| \`${n}\` | ${typeText(p, schema)} | ${flags.join(", ") || "-"} | ${cell(p.description ?? "")} |`;
  });
  return ["| Name | Type | Flags | Description |", "|---|---|---|---|", ...rows, ""].join("\n");
}

/** The object types a page refers to, followed transitively. */
function typesUsed(specs: Json[], schema: Json): string[] {
  const seen = new Set<string>();
  const walk = (spec: Json) => {
    if (!spec || typeof spec !== "object") return;
    if (typeof spec.$ref === "string" && spec.$ref.startsWith("#/types/")) {
      const token = spec.$ref.slice("#/types/".length);
      if (!seen.has(token)) {
        seen.add(token);
        for (const p of Object.values<Json>(schema.types[token]?.properties ?? {})) walk(p);
      }
    }
    if (spec.items) walk(spec.items);
    if (spec.additionalProperties && typeof spec.additionalProperties === "object") walk(spec.additionalProperties);
    for (const p of Object.values<Json>(spec.properties ?? {})) walk(p);
  };
  specs.forEach(walk);
  return [...seen].sort();
}

function typeSections(tokens: string[], schema: Json): string {
  return tokens
    .map((token) => {
      const t = schema.types[token];
      return `### ${nameOf(token)}\n\n${t.description ? `${t.description}\n\n` : ""}${table(t.properties, t.required ?? [], schema)}`;
    })
    .join("\n");
}

const LABELS: Record<string, string> = {
  typescript: "TypeScript (`pulumi-cloudplatform/native`; the same code compiles against `pulumi-cloudplatform`):",
  python: "Python (`pulumi_cloudplatform`):",
  go: "Go (`sdk/go/cloudplatform`):",
  yaml: "YAML (`runtime: yaml`):",
};

/**
 * A schema description as GitHub shows it: the same text, without the Registry's shortcodes, each
 * code block labelled with its language; the import section apart, for the page's end.
 */
function described(description: string): { body: string; importText: string } {
  const [body, importText = ""] = (description ?? "").split(/^(?=## Import$)/m);
  const shown = body
    .replace(/^\{\{% \/?examples? %\}\}(\n|$)/gm, "")
    .replace(/^```(typescript|python|go|yaml)$/gm, (fence, lang: string) => `${LABELS[lang]}\n\n${fence}`)
    .replace(/^```\n(?=\S)/gm, "```\n\n");
  return { body: shown.trimEnd() + "\n\n", importText: importText.trimEnd() + (importText ? "\n" : "") };
}

/** The description's first sentence, for the index. */
const summary = (description: string) => /^[\s\S]*?\.(?=\s+[A-Z`]|\s*$)/.exec((description ?? "").split("\n\n")[0])?.[0] ?? "";

const tidy = (lines: string[]) => lines.join("\n").replace(/\n{3,}/g, "\n\n");

function resourcePage(token: string, r: Json, schema: Json): Page {
  const name = nameOf(token);
  const required: string[] = r.requiredInputs ?? [];
  const types = typesUsed([...Object.values<Json>(r.inputProperties ?? {}), ...Object.values<Json>(r.properties ?? {})], schema);
  const own = Object.fromEntries(Object.entries<Json>(r.properties ?? {}).filter(([k]) => !(k in (r.inputProperties ?? {}))));
  const { body, importText } = described(r.description);
  const text = tidy([`# ${name}`, "", `\`${token}\``, "", ""]) + body + tidy([
    ...(r.isComponent
      ? [
        "A component: the generated SDKs (`pulumi-cloudplatform/native`, Python, Go) have the same class, which the plugin builds (Construct) from native resources, its children.",
        "",
        "## Inputs",
        "",
        table(r.inputProperties, required, schema),
        "## Outputs",
        "",
        table(r.properties ?? {}, undefined, schema),
      ]
      : [
        "The native SDK (`pulumi-cloudplatform/native`) offers the same class, with `get`.",
        "",
        "## Inputs",
        "",
        "_replaces_: changing the property replaces the object; every other change is made in place.",
        "",
        table(r.inputProperties, required, schema, { replaces: true }),
        "## Outputs",
        "",
        "Every input is also an output. Besides:",
        "",
        table(own, undefined, schema),
      ]),
    ...(types.length ? ["## Types", "", typeSections(types, schema)] : []),
  ]).trimEnd() + "\n\n" + importText;
  return { file: `${name}.md`, text: text.trimEnd() + "\n" };
}

function functionPage(token: string, f: Json, schema: Json): Page {
  const name = nameOf(token);
  const required: string[] = f.inputs?.required ?? [];
  const types = typesUsed([...Object.values<Json>(f.inputs?.properties ?? {}), ...Object.values<Json>(f.outputs?.properties ?? {})], schema);
  const text = tidy([`# ${name}`, "", `\`${token}\``, "", ""]) + described(f.description).body + tidy([
    `Each function has a plain form (a Promise in TypeScript, a value in Python and Go) and an Output form (\`${name}Output\`), which takes Outputs.`,
    "",
    "## Arguments",
    "",
    table(f.inputs?.properties ?? {}, required, schema),
    "## Result",
    "",
    table(f.outputs?.properties ?? {}, undefined, schema),
    ...(types.length ? ["## Types", "", typeSections(types, schema)] : []),
  ]);
  return { file: `${name}.md`, text: text.trimEnd() + "\n" };
}

/** Every operation needs these (from config or the environment), although the schema cannot require them. */
const REQUIRED_CONFIG = ["apiKey", "baseUrl"];

function configPage(schema: Json): Page {
  const text = [
    "# Provider configuration",
    "",
    "Stack configuration keys `cloudplatform:<name>`, and the inputs of an explicit `Provider` resource.",
    "",
    table(schema.config?.variables ?? {}, REQUIRED_CONFIG, schema),
    "Each falls back to its environment variable; a required one may be set either way:",
    "",
    ...Object.entries<Json>(schema.config?.variables ?? {}).map(([k, v]) => `- \`${k}\`: \`${(v.defaultInfo?.environment ?? []).join("`, `")}\``),
  ].join("\n");
  return { file: "Provider.md", text: text.trimEnd() + "\n" };
}

export function buildDocs(schema: Json): Page[] {
  const pages: Page[] = [configPage(schema)];
  for (const [token, r] of Object.entries<Json>(schema.resources ?? {})) pages.push(resourcePage(token, r, schema));
  for (const [token, f] of Object.entries<Json>(schema.functions ?? {})) pages.push(functionPage(token, f, schema));
  const index = [
    `# ${schema.displayName ?? PKG} reference`,
    "",
    `Generated from [schema.json](../../schema.json) (version ${schema.version}) by \`make schema\`; do not edit.`,
    "",
    "## Resources",
    "",
    ...Object.entries<Json>(schema.resources ?? {}).map(([t, r]) => `- [${nameOf(t)}](${nameOf(t)}.md): ${cell(summary(r.description))}`),
    "",
    "## Functions",
    "",
    ...Object.entries<Json>(schema.functions ?? {}).map(([t, f]) => `- [${nameOf(t)}](${nameOf(t)}.md): ${cell(summary(f.description))}`),
    "",
    "## Configuration",
    "",
    "- [Provider](Provider.md): `apiKey`, `baseUrl`, `workspaceId`",
    "",
  ].join("\n");
  pages.push({ file: "README.md", text: index });
  return pages;
}

export function renderDocs(root: string): Page[] {
  const schema = JSON.parse(readFileSync(join(root, "schema.json"), "utf8"));
  return buildDocs(schema);
}

if (require.main === module) {
  const root = join(__dirname, "..", "..");
  const dir = join(root, "docs", "reference");
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith(".md")) rmSync(join(dir, f));
  for (const page of renderDocs(root)) writeFileSync(join(dir, page.file), page.text);
}
