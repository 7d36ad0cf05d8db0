// Builds schema.json, the Pulumi package schema, from the zod definitions the provider runs on.
// `make schema` writes it; test/schema.test.ts fails when the committed file is stale.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, withDescriptions } from "./doc-examples";
import { jsonOf, type Json, limits, normalize, pascal } from "./json-schema";
import { type ComponentDefinition, components } from "../provider/components";
import { CONFIG_KEYS } from "../provider/config";
import { functions } from "../provider/functions";
import type { ResourceDefinition } from "../provider/resources/framework";
import { loadAll, resources } from "../provider/resources";
import { packageVersion } from "../provider/version";

loadAll();

type TypeSpec = Json;

const PKG = "cloudplatform";

/**
 * The Pulumi SDK releases the generated SDKs accept: from the oldest one the tests run, the pinned
 * 3.248.0 (README, "Tested versions"); package.json's peer range says the same for @pulumi/pulumi.
 * test/tested-versions.test.ts holds these to the pinned and the newest toolchains.
 */
export const PULUMI_NODE_RANGE = "^3.248.0";
export const PULUMI_PYTHON_RANGE = ">=3.248.0,<4.0.0";
/** The project's repository: its releases carry the plugin archives `make plugin` builds, and the Go SDK's module lives in it. */
export const REPOSITORY = "github.com/pulumi-cloudplatform/pulumi-cloudplatform";
/**
 * The engine finds the repository's GitHub release v<version> and downloads its asset
 * `pulumi-resource-cloudplatform-v<version>-<os>-<arch>.tar.gz`. (The https form with a `${VERSION}`
 * placeholder would do the same, but `pulumi import` writes the URL into HCL, where `${...}` is a
 * template, and fails.)
 */
export const PLUGIN_DOWNLOAD_URL = `github://api.${REPOSITORY}`;
const types: Record<string, Json> = {};


/** JSON Schema (as zod exports it) to a Pulumi type spec; nested objects become named types. */
function typeSpec(raw: Json, nameHint: string): TypeSpec {
  const js = normalize(raw);
  if (js.anyOf) {
    const nonNull = js.anyOf.filter((s: Json) => s.type !== "null");
    if (nonNull.length === 1) return withDocs(typeSpec({ ...nonNull[0], description: js.description ?? nonNull[0].description }, nameHint), js);
    return withDocs({ $ref: "pulumi.json#/Any" }, js);
  }
  switch (js.type) {
    case "string":
      return withDocs({ type: "string" }, js);
    case "integer":
      return withDocs({ type: "integer" }, js);
    case "number":
      return withDocs({ type: "number" }, js);
    case "boolean":
      return withDocs({ type: "boolean" }, js);
    case "array":
      return withDocs({ type: "array", items: stripDocs(typeSpec(js.items ?? {}, nameHint.replace(/s$/, ""))) }, js);
    case "object": {
      if (!js.properties) {
        const add = js.additionalProperties && typeof js.additionalProperties === "object" ? stripDocs(typeSpec(js.additionalProperties, nameHint)) : { $ref: "pulumi.json#/Any" };
        return withDocs({ type: "object", additionalProperties: add }, js);
      }
      const token = `${PKG}:index:${js.typeName ?? pascal(nameHint)}`;
      types[token] = {
        type: "object",
        ...(js.description ? { description: js.description } : {}),
        properties: properties(js, nameHint),
        ...(present(js).length ? { required: present(js) } : {}),
      };
      return withDocs({ $ref: `#/types/${token}` }, js);
    }
    default:
      return withDocs({ $ref: "pulumi.json#/Any" }, js);
  }
}

function withDocs(spec: TypeSpec, js: Json): TypeSpec {
  const out: Json = { ...spec };
  const known: string[] | undefined = js.knownValues ?? js.enum;
  let description = js.description as string | undefined;
  if (known?.length) description = `${description ? `${description} ` : ""}Known values: ${known.join(", ")} (the set is open).`;
  const limit = limits(js);
  if (limit && !description?.includes(limit)) description = `${description ? `${description} ` : ""}${limit}`;
  if (description) out.description = description;
  if (js.secret) out.secret = true;
  return out;
}

function stripDocs(spec: TypeSpec): TypeSpec {
  const { description: _d, secret: _s, ...rest } = spec;
  return rest;
}

/**
 * The properties that always hold a value: required and not nullable. A nullable output is left
 * out, so every generated SDK types it as possibly absent (`Output<string | undefined>`, `Optional[str]`).
 */
function present(js: Json): string[] {
  const nullable = (key: string) => (normalize(js.properties?.[key] ?? {}).anyOf ?? []).some((s: Json) => s.type === "null");
  return [...(js.required ?? [])].filter((k) => !nullable(k)).sort();
}

function properties(js: Json, owner: string): Json {
  const out: Json = {};
  for (const key of Object.keys(js.properties ?? {}).sort()) {
    out[key] = typeSpec(js.properties[key], `${owner}${pascal(key)}`);
  }
  return out;
}


function resourceSpec(kind: string, def: ResourceDefinition): Json {
  const inputs = jsonOf(def.inputs, "input");
  const outputs = jsonOf(def.outputs, "output");
  const props = properties(outputs, kind);
  const inputProps = properties(inputs, kind);
  // Secret as inputs too, so a generated SDK wraps them and state never holds them in plain text.
  for (const key of def.secretOutputs ?? []) for (const p of [props, inputProps]) if (p[key]) p[key].secret = true;
  for (const key of replacingInputs(def)) inputProps[key].replaceOnChanges = true;
  return {
    description: def.description,
    // Read by tools/sdkgen: the generated class defaults the deleteBeforeReplace option to true.
    ...(def.deleteBeforeReplace ? { language: { cloudplatform: { deleteBeforeReplace: true } } } : {}),
    properties: props,
    required: present(outputs),
    inputProperties: inputProps,
    requiredInputs: [...(inputs.required ?? [])].sort(),
  };
}

/** A component (served by the plugin's Construct): its inputs, and its outputs with its children as resource references. */
function componentSpec(kind: string, c: ComponentDefinition): Json {
  const inputs = jsonOf(c.inputs, "input");
  const outputs = jsonOf(c.outputs, "output");
  const props = properties(outputs, kind);
  for (const [key, child] of Object.entries(c.children)) props[key] = { $ref: `#/resources/${resources[child.kind].token}`, description: child.description };
  return {
    isComponent: true,
    description: c.description,
    properties: Object.fromEntries(Object.entries(props).sort(([a], [b]) => a.localeCompare(b))),
    required: [...present(outputs), ...Object.keys(c.children)].sort(),
    inputProperties: properties(inputs, kind),
    requiredInputs: [...(inputs.required ?? [])].sort(),
  };
}

/**
 * The inputs whose change replaces the object, asked of the resource's own diff (one property
 * changed at a time), so the schema and the reference docs cannot disagree with it.
 */
export function replacingInputs(def: ResourceDefinition): string[] {
  if (!def.diff) return [];
  const keys = Object.keys(def.inputs.shape);
  const olds = Object.fromEntries(keys.map((k) => [k, "a"]));
  return keys.filter((k) => {
    let d: unknown;
    try {
      d = def.diff!("id", olds as never, { ...olds, [k]: "b" } as never);
    } catch {
      return false; // a property that is not a string (a list of records, say) is not an identity
    }
    if (d instanceof Promise) throw new Error(`${def.token}: diff must be synchronous for the schema's replace flags`);
    return ((d as { replaces?: string[] }).replaces ?? []).includes(k);
  });
}

function withoutDefault(spec: Json): Json {
  const { defaultInfo: _d, ...rest } = spec;
  return rest;
}

export function buildSchema(): Json {
  for (const k of Object.keys(types)) delete types[k];
  const configVars: Json = {
    apiKey: {
      type: "string",
      secret: true,
      description: "API key (svc_live_ workspace key or svc_pat_ platform token). Never stored in plain text.",
      defaultInfo: { environment: [CONFIG_KEYS.apiKey.env] },
    },
    baseUrl: {
      type: "string",
      description: "Base address of the platform API, e.g. http://127.0.0.1:4510 for the emulator.",
      defaultInfo: { environment: [CONFIG_KEYS.baseUrl.env] },
    },
    workspaceId: {
      type: "string",
      description: "Workspace for resources that do not name one. Defaults to the only workspace the key reaches.",
      defaultInfo: { environment: [CONFIG_KEYS.workspaceId.env] },
    },
    insecure: {
      type: "boolean",
      description: "Allow plain http:// to a baseUrl that is not loopback. The API key then crosses the network in clear text; off by default.",
      defaultInfo: { environment: [CONFIG_KEYS.insecure.env] },
    },
  };
  const resourceSpecs: Json = {};
  for (const kind of Object.keys(resources).sort()) resourceSpecs[resources[kind].token] = resourceSpec(kind, resources[kind]);
  for (const kind of Object.keys(components).sort()) resourceSpecs[components[kind].token] = componentSpec(kind, components[kind]);
  const functionSpecs: Json = {};
  for (const name of Object.keys(functions).sort()) {
    const fn = functions[name];
    const inputs = jsonOf(fn.inputs, "input");
    const outputs = jsonOf(fn.outputs, "output");
    functionSpecs[fn.token] = {
      description: fn.description,
      inputs: { properties: properties(inputs, `${name}Args`), required: [...(inputs.required ?? [])].sort() },
      outputs: { properties: properties(outputs, `${name}Result`), required: present(outputs) },
    };
  }
  return {
    name: PKG,
    displayName: "Cloud Platform",
    version: packageVersion(),
    description: "Manage projects, environments, services, DNS, mail sending domains, buckets and custom domains on the cloud platform.",
    keywords: ["pulumi", "cloudplatform", "category/cloud"],
    license: "Apache-2.0",
    publisher: "pulumi-cloudplatform",
    repository: `https://${REPOSITORY}`,
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    config: { variables: configVars },
    // The plugin itself falls back to CLOUDPLATFORM_API_KEY: a generated SDK that read it would
    // store the key among the provider's inputs in state.
    provider: { description: "The cloudplatform provider.", inputProperties: { ...configVars, apiKey: withoutDefault(configVars.apiKey) } },
    types: Object.fromEntries(Object.entries(types).sort(([a], [b]) => a.localeCompare(b))),
    resources: resourceSpecs,
    functions: functionSpecs,
    language: {
      // Program code Pulumi generates (`pulumi import`) imports the native SDK from here.
      nodejs: { packageName: "pulumi-cloudplatform/native", dependencies: { "@pulumi/pulumi": PULUMI_NODE_RANGE } },
      // The generated Python package carries the schema's version, which is package.json's, and
      // its README (which sdkgen also puts beside setup.py, so the wheel's description has it).
      python: { respectSchemaVersion: true, requires: { pulumi: PULUMI_PYTHON_RANGE }, readme: readFileSync(join(ROOT, "docs", "python-sdk.md"), "utf8") },
      // sdk/go is the module (its go.mod is sdkgen's); the package is sdk/go/cloudplatform.
      go: { importBasePath: `${REPOSITORY}/sdk/go/cloudplatform`, respectSchemaVersion: true },
    },
  };
}

/** The schema with its long descriptions (provider/schema-docs), as committed. */
export function renderSchema(): string {
  const importIds = Object.fromEntries(Object.values(resources).map((def) => [def.token, def.importId]));
  return JSON.stringify(withDescriptions(ROOT, buildSchema(), importIds), null, 2) + "\n";
}

if (require.main === module) process.stdout.write(renderSchema());
