// Generates sdk/types.ts: plain TypeScript interfaces (TS 4.x compatible, with doc comments) and the
// runtime metadata the resource classes need, from the provider's zod definitions. The SDK's .d.ts
// files then depend on @pulumi/pulumi only. `make schema` writes it; a test fails when it is stale.
import { article, jsonOf, type Json, normalize, pascal } from "./json-schema";
import { functions } from "../provider/functions";
import { loadAll, resources } from "../provider/resources";

loadAll();


class Emitter {
  private blocks = new Map<string, string>();

  /** TS type for a JSON schema; `input` wraps values in pulumi.Input and names nested types *Args. */
  type(raw: Json, hint: string, input: boolean): string {
    const js = normalize(raw);
    if (js.anyOf) {
      const nonNull = js.anyOf.filter((s: Json) => s.type !== "null");
      const hasNull = nonNull.length !== js.anyOf.length;
      const inner = nonNull.length === 1 ? this.type(nonNull[0], hint, input) : "any";
      return hasNull && !input ? `${inner} | null` : inner;
    }
    const wrap = (t: string) => (input ? `pulumi.Input<${t}>` : t);
    switch (js.type) {
      case "string":
        return js.enum ? js.enum.map((v: string) => JSON.stringify(v)).join(" | ") : "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "array":
        return `${wrap(this.type(js.items ?? {}, hint.replace(/s$/, ""), input))}[]`;
      case "object": {
        if (!js.properties) {
          const add = js.additionalProperties && typeof js.additionalProperties === "object" ? this.type(js.additionalProperties, hint, input) : "any";
          return `Record<string, ${wrap(add)}>`;
        }
        // A schema may name its type once (meta typeName) so every use shares it.
        const name = `${js.typeName ?? pascal(hint)}${input ? "Args" : ""}`;
        this.iface(name, js, hint, input);
        return name;
      }
      default:
        return "any";
    }
  }

  /** `optionalFields` marks fields outside `required` optional without wrapping them (function args). */
  iface(name: string, js: Json, hint: string, input: boolean, doc?: string, optionalFields = input): void {
    if (this.blocks.has(name)) return;
    this.blocks.set(name, "");
    const required = new Set<string>(js.required ?? []);
    const lines: string[] = [];
    if (doc ?? js.description) lines.push(comment(doc ?? js.description, ""));
    lines.push(`export interface ${name} {`);
    for (const key of Object.keys(js.properties ?? {}).sort()) {
      const prop = normalize(js.properties[key]);
      const t = this.type(prop, `${hint}${pascal(key)}`, input);
      const description = prop.description ?? prop.anyOf?.find((s: Json) => s.description)?.description;
      const known: string[] | undefined = prop.knownValues ?? prop.anyOf?.find((s: Json) => s.knownValues)?.knownValues;
      const text = [description, known ? `Known values: ${known.join(", ")} (the set is open).` : undefined].filter(Boolean).join(" ");
      if (text) lines.push(comment(text, "  "));
      const optional = optionalFields && !required.has(key);
      lines.push(`  ${input ? "" : "readonly "}${key}${optional ? "?" : ""}: ${input ? `pulumi.Input<${t}>` : t};`);
    }
    lines.push("}");
    this.blocks.set(name, lines.join("\n"));
  }

  render(): string {
    return [...this.blocks.values()].join("\n\n");
  }
}

function comment(text: string, indent: string): string {
  const words = text.split(/\s+/);
  const out: string[] = [];
  let line = "";
  for (const w of words) {
    if ((line + " " + w).trim().length > 96) {
      out.push(line.trim());
      line = "";
    }
    line += " " + w;
  }
  if (line.trim()) out.push(line.trim());
  return `${indent}/**\n${out.map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */`;
}


export function renderSdkTypes(): string {
  const e = new Emitter();
  const meta: Record<string, { outputs: string[]; secretOutputs: string[]; deleteBeforeReplace: boolean; keyedLists?: Record<string, string> }> = {};
  for (const kind of Object.keys(resources).sort()) {
    const def = resources[kind];
    e.iface(`${kind}Args`, jsonOf(def.inputs, "input"), kind, true, `The arguments of ${article(kind)}.`);
    e.iface(`${kind}State`, jsonOf(def.outputs, "output"), kind, false, `The output properties of ${article(kind)}.`);
    meta[kind] = { outputs: Object.keys(def.outputs.shape), secretOutputs: def.secretOutputs ?? [], deleteBeforeReplace: def.deleteBeforeReplace ?? false, ...(def.keyedLists ? { keyedLists: def.keyedLists } : {}) };
  }
  for (const name of Object.keys(functions).sort()) {
    const fn = functions[name];
    const base = pascal(name);
    e.iface(`${base}Args`, jsonOf(fn.inputs, "input"), `${base}Args`, false, `The arguments of ${name}.`, true);
    e.iface(`${base}Result`, jsonOf(fn.outputs, "output"), `${base}Result`, false, `The result of ${name}.`);
  }
  return [
    "// Generated by scripts/gen-sdk-types.ts from the provider's definitions (`make schema`). Do not edit.",
    'import type * as pulumi from "@pulumi/pulumi";',
    "",
    e.render(),
    "",
    "/** @internal Output property names, always-secret outputs, the deleteBeforeReplace default and the keyed lists (list -> the field items are known by) of each resource. */",
    `export const resourceMeta: Record<string, { outputs: string[]; secretOutputs: string[]; deleteBeforeReplace: boolean; keyedLists?: Record<string, string> }> = ${JSON.stringify(meta, null, 2)};`,
    "",
  ].join("\n");
}

if (require.main === module) process.stdout.write(renderSdkTypes());
