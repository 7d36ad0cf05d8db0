// Property values between the engine's protobuf Structs and the plain JSON handlers work on.
// The provider accepts secrets (the engine asks it of a provider that constructs components, and a
// secret nested in a list then arrives as that one value, not the whole list), but not resources or
// outputs: handlers see plain values, and each response marks secret what the request held as
// secret (the value itself where it comes back unchanged, else its whole property), plus the
// resource's own secrets. Unknowns stay the engine's sentinel string, which is
// framework.UNKNOWN.
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { UNKNOWN } from "../resources/framework";
import { isSecretValue, markSecretPaths, SECRET_SIG, secretValue, SIG, type SecretPath } from "../secrets";

export { SECRET_SIG, SIG };
const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
const OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4";

export type Props = Record<string, unknown>;

/** A request's Struct as plain JSON; a missing Struct is an empty object. */
export function fromStruct(s: Struct | undefined): Props {
  if (!s) return {};
  return unwrap(s.toJavaScript()) as Props;
}

function unwrap(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrap);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    switch (o[SIG]) {
      case SECRET_SIG:
        return unwrap(o.value);
      case RESOURCE_SIG:
        return unwrap(o.id ?? o.urn);
      case OUTPUT_SIG:
        return "value" in o ? unwrap(o.value) : UNKNOWN;
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrap(x)]));
  }
  return v;
}

/**
 * The secret parts of a request, by top-level property: a property that was secret as a whole, or
 * held a secret that is not a string, is `whole`; otherwise its secret strings are listed. In a
 * keyed list (env vars by key), each item's secret fields are also kept by the item's key, so the
 * same field stays secret when its value has changed (a refresh of a rotated secret).
 */
export interface RequestSecrets {
  whole: Set<string>;
  strings: Map<string, Set<string>>;
  /** Keyed list -> the field items are known by, and by item key its secret fields and their values. */
  items: Map<string, { idField: string; byId: Map<string, { fields: Set<string>; values: Set<string> }> }>;
}

export function requestSecrets(keyed: Record<string, string> | undefined, ...structs: (Struct | undefined)[]): RequestSecrets {
  const found: RequestSecrets = { whole: new Set(), strings: new Map(), items: new Map() };
  const walk = (key: string, v: unknown, top: boolean): void => {
    if (isSecretValue(v)) {
      const inner = v.value;
      if (top || typeof inner !== "string") found.whole.add(key);
      else found.strings.set(key, (found.strings.get(key) ?? new Set()).add(inner));
    } else if (Array.isArray(v)) v.forEach((x) => walk(key, x, false));
    else if (v && typeof v === "object") Object.values(v).forEach((x) => walk(key, x, false));
  };
  for (const s of structs) {
    for (const [key, v] of Object.entries(s?.toJavaScript() ?? {})) {
      walk(key, v, true);
      const idField = keyed?.[key];
      if (!idField || !Array.isArray(v)) continue;
      for (const item of v) {
        const id = item && typeof item === "object" ? (item as Record<string, unknown>)[idField] : undefined;
        if (typeof id !== "string") continue;
        for (const [field, x] of Object.entries(item as Record<string, unknown>)) {
          if (!isSecretValue(x) || typeof x.value !== "string") continue;
          const { byId } = found.items.get(key) ?? found.items.set(key, { idField, byId: new Map() }).get(key)!;
          const entry = byId.get(id) ?? byId.set(id, { fields: new Set(), values: new Set() }).get(id)!;
          entry.fields.add(field);
          entry.values.add(x.value);
        }
      }
    }
  }
  return found;
}

/** Where a response's secrets go. */
export interface SecretSpec {
  /** Top-level properties that are always secret. */
  keys?: readonly string[];
  /** Values nested in a property that are secret (an env var's value). */
  paths?: readonly SecretPath[];
  /** What the request held as secret: kept secret in the response. */
  from?: RequestSecrets;
}

/**
 * Plain JSON to a Struct for a response. Undefined values are dropped; the secrets `secrets` names
 * go back as secrets, so state encrypts them whichever SDK (or none, on import) made them.
 */
export function toStruct(props: Props | undefined, secrets: readonly string[] | SecretSpec = []): Struct {
  const spec: SecretSpec = Array.isArray(secrets) ? { keys: secrets as readonly string[] } : (secrets as SecretSpec);
  let clean = JSON.parse(JSON.stringify(props ?? {})) as Props;
  const paths: SecretPath[] = [...(spec.paths ?? [])];
  const whole = new Set([...(spec.keys ?? []), ...(spec.from?.whole ?? [])]);
  for (const [key, values] of spec.from?.strings ?? []) {
    if (whole.has(key)) continue;
    const found = new Set<string>();
    // Items of a keyed list keep their secret fields by key, whatever their values are now.
    const items = spec.from?.items.get(key);
    if (items && Array.isArray(clean[key])) {
      (clean[key] as Record<string, unknown>[]).forEach((item, i) => {
        const entry = items.byId.get(String(item?.[items.idField]));
        for (const field of entry?.fields ?? []) if (item[field] !== undefined) paths.push([key, i, field]);
      });
      for (const entry of items.byId.values()) for (const v of entry.values) found.add(v);
    }
    collectStrings(clean[key], [key], values, paths, found);
    // A secret the handler rewrote (trimmed, folded into a JSON document) cannot be found by value:
    // the whole property stays secret rather than let it reach state in plain text.
    if (found.size < values.size && clean[key] !== undefined) whole.add(key);
  }
  clean = markSecretPaths(clean, paths);
  for (const key of whole) {
    const v = clean[key];
    if (key in clean && v !== null && v !== UNKNOWN && !isSecretValue(v)) clean[key] = secretValue(v);
  }
  return Struct.fromJavaScript(clean as Record<string, any>);
}

/** True when a request value holds a secret anywhere in it. */
export function containsSecrets(v: unknown): boolean {
  if (isSecretValue(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecrets);
  return !!v && typeof v === "object" && Object.values(v).some(containsSecrets);
}

/** The paths of the strings under `v` that are among `values`. */
function collectStrings(v: unknown, at: SecretPath, values: Set<string>, out: SecretPath[], found: Set<string>): void {
  if (typeof v === "string") {
    if (values.has(v)) {
      out.push(at);
      found.add(v);
    }
  } else if (Array.isArray(v)) v.forEach((x, i) => collectStrings(x, [...at, i], values, out, found));
  else if (v && typeof v === "object" && !isSecretValue(v)) for (const [k, x] of Object.entries(v)) collectStrings(x, [...at, k], values, out, found);
}

