// How the pack sees a resource of either SDK: the native SDKs (TypeScript, Python, Go) register
// `cloudplatform:index:<Kind>`, the dynamic SDK `pulumi-nodejs:dynamic/cloudplatform:<Kind>` with
// the same property names (plus hidden `__`-prefixed inputs, which no policy reads).
import type { PolicyResource } from "@pulumi/policy";

const TYPE = /^(?:cloudplatform:index:|pulumi-nodejs:dynamic\/cloudplatform:)([A-Za-z]+)$/;

/** The resource kind (`Bucket`, `Service`...) of a type token of either SDK; undefined for other providers' types. */
export function kindOf(type: string): string | undefined {
  return TYPE.exec(type)?.[1];
}

/** Both type tokens of a kind, as the SDKs register it. */
export const tokensOf = (kind: string) => [`cloudplatform:index:${kind}`, `pulumi-nodejs:dynamic/cloudplatform:${kind}`];

/** A resource's logical name, for a message. */
export const label = (r: { name: string }) => `'${r.name}'`;

/** The resources a property of `r` was computed from (`environmentId` of a Service: its Environment). */
export function dependsOn(r: PolicyResource, property: string, kind: string): PolicyResource[] {
  return (r.propertyDependencies?.[property] ?? []).filter((d) => kindOf(d.type) === kind);
}

/** True when `r` is a child (at any depth) of a resource of `kind`, a component of either SDK. */
export function ancestorOf(r: PolicyResource, kind: string): PolicyResource | undefined {
  for (let p = r.parent; p; p = p.parent) if (kindOf(p.type) === kind) return p;
  return undefined;
}

export const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/**
 * The items of a keyed list (a Service's `envVars`, by `key`): the native SDKs send the list, the
 * dynamic SDK a map by key (provider/keyed.ts); either way, items with their key.
 */
export function keyedItems<T>(v: unknown, idField: string): T[] {
  if (Array.isArray(v)) return v as T[];
  if (!v || typeof v !== "object") return [];
  return Object.entries(v).map(([id, item]) => ({ ...(item as object), [idField]: id }) as T);
}

/** True for @pulumi/policy's error on reading a value a preview does not know yet. */
export const isUnknownValueError = (e: unknown) => e instanceof Error && e.constructor.name === "UnknownValueError";

/** `read()`, or `fallback` when it reads a value the preview does not know yet (computed from another resource). */
export function known<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (e) {
    if (isUnknownValueError(e)) return fallback;
    throw e;
  }
}
