// The examples of schema.json's descriptions (the Registry's `{{% examples %}}` sections), by
// language, and the check of a YAML example against the schema.
import { exampleKey } from "../../scripts/doc-examples";
import type { Json } from "../../scripts/json-schema";

export type Fence = "typescript" | "python" | "go" | "yaml";

/** Each resource's and function's examples in one language, keyed `<Name>-<n>`. */
export function blocks(schema: Json, fence: Fence): Map<string, string> {
  const out = new Map<string, string>();
  for (const [token, entry] of [...Object.entries<Json>(schema.resources), ...Object.entries<Json>(schema.functions)]) {
    const section = /\{\{% examples %\}\}([\s\S]*?)\{\{% \/examples %\}\}/.exec(entry.description ?? "")?.[1] ?? "";
    const found = [...section.matchAll(new RegExp(`^\`\`\`${fence}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => m[1]);
    found.forEach((code, i) => out.set(exampleKey(token.split(":")[2], i), code));
  }
  return out;
}

const fullToken = (type: string) => type.replace(/^cloudplatform:(?!index:)/, "cloudplatform:index:");

/** Keys of `values` that the schema's properties do not have, following object types into lists and nested objects. */
function unknownKeys(where: string, values: unknown, props: Json, schema: Json, out: string[]): void {
  if (!values || typeof values !== "object" || Array.isArray(values)) return;
  for (const [key, value] of Object.entries(values)) {
    const spec = props[key];
    if (!spec) {
      out.push(`${where}: no property ${key}`);
      continue;
    }
    const item = spec.type === "array" ? spec.items : spec;
    const ref = typeof item?.$ref === "string" && item.$ref.startsWith("#/types/") ? schema.types[item.$ref.slice("#/types/".length)] : undefined;
    if (!ref) continue;
    for (const [i, v] of (Array.isArray(value) ? value : [value]).entries()) unknownKeys(`${where}.${key}${Array.isArray(value) ? `[${i}]` : ""}`, v, ref.properties ?? {}, schema, out);
  }
}

/** What a parsed YAML program names that the schema does not have: types, functions, inputs, required inputs, outputs read. */
export function yamlProblems(name: string, program: Json, text: string, schema: Json): string[] {
  const out: string[] = [];
  for (const key of Object.keys(program)) if (!["configuration", "resources", "variables", "outputs"].includes(key)) out.push(`${name}: unknown section ${key}`);
  const outputsOf = new Map<string, Json>();
  for (const [logical, res] of Object.entries<Json>(program.resources ?? {})) {
    const spec = schema.resources[fullToken(String(res.type))];
    if (!spec) {
      out.push(`${name}: ${logical}: no resource type ${res.type}`);
      continue;
    }
    outputsOf.set(logical, { id: {}, urn: {}, ...spec.properties });
    unknownKeys(`${name}: ${logical}`, res.properties ?? {}, spec.inputProperties ?? {}, schema, out);
    for (const required of spec.requiredInputs ?? []) if (!(required in (res.properties ?? {}))) out.push(`${name}: ${logical}: required input ${required} missing`);
  }
  for (const [variable, value] of Object.entries<Json>(program.variables ?? {})) {
    const invoke = value?.["fn::invoke"];
    if (!invoke) continue;
    const fn = schema.functions[fullToken(String(invoke.function))];
    if (!fn) {
      out.push(`${name}: ${variable}: no function ${invoke.function}`);
      continue;
    }
    outputsOf.set(variable, fn.outputs?.properties ?? {});
    unknownKeys(`${name}: ${variable}`, invoke.arguments ?? {}, fn.inputs?.properties ?? {}, schema, out);
    for (const required of fn.inputs?.required ?? []) if (!(required in (invoke.arguments ?? {}))) out.push(`${name}: ${variable}: required argument ${required} missing`);
  }
  // `${resource.output}` and `${variable.field}`: the output must exist
  for (const [, owner, prop] of text.matchAll(/\$\{(\w+)\.(\w+)/g)) {
    const outputs = outputsOf.get(owner);
    if (outputs && !(prop in outputs)) out.push(`${name}: ${owner} has no output ${prop}`);
    if (!outputs && !(owner in (program.configuration ?? {}))) out.push(`${name}: ${owner} is not declared`);
  }
  return out;
}
