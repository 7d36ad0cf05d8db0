// Builds the reference docs, one Markdown page per resource and function, from schema.json.
// `make schema` writes them into docs/reference/; test/schema.test.ts fails when they are stale.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Json } from "./json-schema";
import { loadAll, resources } from "../provider/resources";

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

/** Hand-written examples; a resource without one gets its required inputs with placeholders. */
const EXAMPLES: Record<string, string> = {
  Project: 'const shop = new cloud.Project("shop", { name: "shop", region: "af-west-1" });',
  Environment: 'const prod = new cloud.Environment("prod", { projectId: shop.id, name: "prod" }); // kind: "PROD"',
  Service: [
    'const web = new cloud.Service("web", {',
    '  environmentId: prod.id, name: "web", type: "WEB", image: "nginx:1.27", port: 8080,',
    '  envVars: [{ key: "LOG_LEVEL", value: "info" }],',
    "});",
  ].join("\n"),
  EnvVar: 'new cloud.EnvVar("flag", { serviceId: web.id, key: "FEATURE_FLAG", value: "on" });',
  SecretFile: 'new cloud.SecretFile("creds", { serviceId: web.id, path: "/etc/secrets/app.json", content: secretJson });',
  DnsZone: 'const zone = new cloud.DnsZone("zone", { name: "example.com" });',
  DnsZoneVerification: 'const proven = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "15m" });',
  DnsRecord: 'new cloud.DnsRecord("www", { zoneId: zone.id, name: "www", type: "CNAME", content: "shop.cloudplatform.app" });',
  DnsRecordSet: [
    'new cloud.DnsRecordSet("site", {',
    "  zoneId: zone.id,",
    '  records: [{ name: "@", type: "A", content: "203.0.113.10" }, { name: "@", type: "MX", content: "mx.example.net", priority: 10 }],',
    "});",
  ].join("\n"),
  MailDomain: 'const mail = new cloud.MailDomain("mail", { name: "mail.example.com" }); // mail.records: what to publish',
  MailDomainVerification: 'new cloud.MailDomainVerification("mail", { domainId: mail.id, timeout: "30m" });',
  Suppression: 'new cloud.Suppression("bounced", { address: "old-customer@example.org" });',
  Bucket: [
    'const assets = new cloud.Bucket("assets", {',
    '  visibility: "PUBLIC_READ",',
    '  corsRules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://www.example.com"] }],',
    "});",
  ].join("\n"),
  CustomDomain: 'const www = new cloud.CustomDomain("www", { serviceId: web.id, domain: "www.example.com" }); // www.dnsTarget: what to publish',
  CustomDomainVerification: 'new cloud.CustomDomainVerification("www", { domainId: www.id, timeout: "30m" });',
  StaticSite: 'const site = new cloud.StaticSite("site", { path: "./public", environmentId: prod.id, name: "marketing", spaFallback: true });',
  VerifiedMailDomain: [
    'const zone = new cloud.DnsZone("zone", { name: "example.com" });',
    'const proven = new cloud.DnsZoneVerification("zone", { zoneId: zone.id });',
    'const mail = new cloud.VerifiedMailDomain("mail", { name: "mail.example.com", zoneId: proven.zoneId }, { dependsOn: [proven] });',
    'export const status = mail.status; // "VERIFIED"',
  ].join("\n"),
  VerifiedCustomDomain: [
    'const www = new cloud.VerifiedCustomDomain("www", { serviceId: web.id, domain: "www.example.com", zoneId: proven.zoneId }, { dependsOn: [proven] });',
    'export const status = www.status; // "ACTIVE"',
  ].join("\n"),
};

/** A placeholder value for an example, by property name and type. */
function sample(name: string, spec: Json): string {
  if (name.endsWith("Id")) return `${name.slice(0, -2)}.id`;
  if (spec.type === "boolean") return "true";
  if (spec.type === "integer" || spec.type === "number") return "1";
  if (spec.type === "array") return "[]";
  if (name === "timeout") return '"10m"';
  if (name === "domain" || (name === "name" && /domain|zone/i.test(spec.description ?? ""))) return '"www.example.com"';
  return `"${name === "type" ? "WEB" : `my-${name.toLowerCase()}`}"`;
}

function resourcePage(token: string, r: Json, schema: Json): Page {
  const name = nameOf(token);
  const required: string[] = r.requiredInputs ?? [];
  const args = required.map((k) => `  ${k}: ${sample(k, r.inputProperties[k])},`).join("\n");
  const body = EXAMPLES[name] ?? `const ${name.charAt(0).toLowerCase()}${name.slice(1)} = new cloud.${name}("${name.toLowerCase()}", {\n${args}\n});`;
  const example = ["```ts", 'import * as cloud from "pulumi-cloudplatform";', "", body, "```"].join("\n");
  const types = typesUsed([...Object.values<Json>(r.inputProperties ?? {}), ...Object.values<Json>(r.properties ?? {})], schema);
  const own = Object.fromEntries(Object.entries<Json>(r.properties ?? {}).filter(([k]) => !(k in (r.inputProperties ?? {}))));
  const text = [
    `# ${name}`,
    "",
    `\`${token}\``,
    "",
    r.description,
    "",
    "## Example",
    "",
    example,
    "",
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
    ...importSection(token),
  ].join("\n");
  return { file: `${name}.md`, text: text.replace(/\n{3,}/g, "\n\n").trimEnd() + "\n" };
}

/** How to adopt an existing object: the import id the resource's read parses (native plugin). */
function importSection(token: string): string[] {
  loadAll();
  const def = Object.values(resources).find((d) => d.token === token);
  if (!def) return [];
  const name = nameOf(token);
  return [
    "## Import",
    "",
    `Import id: \`${def.importId.format}\`. With the native plugin, by the CLI or the \`import\` resource option:`,
    "",
    "```sh",
    `pulumi import ${token} my${name} '${def.importId.format}'`,
    "```",
    "",
    ...(def.importId.note ? [def.importId.note, ""] : []),
  ];
}

function functionPage(token: string, f: Json, schema: Json): Page {
  const name = nameOf(token);
  const required: string[] = f.inputs?.required ?? [];
  const args = required.map((k) => `${k}: ${sample(k, f.inputs.properties[k])}`).join(", ");
  const types = typesUsed([...Object.values<Json>(f.inputs?.properties ?? {}), ...Object.values<Json>(f.outputs?.properties ?? {})], schema);
  const text = [
    `# ${name}`,
    "",
    `\`${token}\``,
    "",
    f.description,
    "",
    "## Example",
    "",
    "```ts",
    'import * as cloud from "pulumi-cloudplatform";',
    "",
    `const result = await cloud.${name}({ ${args} });`,
    `// or, with inputs that are Outputs: cloud.${name}Output({ ${args} })`,
    "```",
    "",
    "## Arguments",
    "",
    table(f.inputs?.properties ?? {}, required, schema),
    "## Result",
    "",
    table(f.outputs?.properties ?? {}, undefined, schema),
    ...(types.length ? ["## Types", "", typeSections(types, schema)] : []),
  ].join("\n");
  return { file: `${name}.md`, text: text.replace(/\n{3,}/g, "\n\n").trimEnd() + "\n" };
}

function configPage(schema: Json): Page {
  const text = [
    "# Provider configuration",
    "",
    "Stack configuration keys `cloudplatform:<name>`, and the inputs of an explicit `Provider` resource.",
    "",
    table(schema.config?.variables ?? {}, [], schema),
    "Each falls back to its environment variable:",
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
    ...Object.entries<Json>(schema.resources ?? {}).map(([t, r]) => `- [${nameOf(t)}](${nameOf(t)}.md): ${cell(r.description ?? "")}`),
    "",
    "## Functions",
    "",
    ...Object.entries<Json>(schema.functions ?? {}).map(([t, f]) => `- [${nameOf(t)}](${nameOf(t)}.md): ${cell(f.description ?? "")}`),
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
  return buildDocs(JSON.parse(readFileSync(join(root, "schema.json"), "utf8")));
}

if (require.main === module) {
  const root = join(__dirname, "..", "..");
  const dir = join(root, "docs", "reference");
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith(".md")) rmSync(join(dir, f));
  for (const page of renderDocs(root)) writeFileSync(join(dir, page.file), page.text);
}
