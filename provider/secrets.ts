// Secret values nested inside a property (one env var's value, not the whole list), in the engine's
// wire form. Both adapters use it: the plugin in its responses, the dynamic host in what it returns,
// which the engine reads back with their secret marks.
import { UNKNOWN } from "./resources/framework";

/** The engine's special-signature key, and the signature of a secret. */
export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type SecretPath = readonly (string | number)[];

export const secretValue = (value: unknown) => ({ [SIG]: SECRET_SIG, value });

export const isSecretValue = (v: unknown): v is { value: unknown } =>
  !!v && typeof v === "object" && (v as Record<string, unknown>)[SIG] === SECRET_SIG;

/**
 * A copy of `props` with the value at each path marked secret (a missing, null or unknown value is
 * left alone). Paths run through objects by key and arrays by index.
 */
export function markSecretPaths<T extends Record<string, unknown>>(props: T, paths: readonly SecretPath[]): T {
  if (!paths.length) return props;
  const out = structuredClone(props) as Record<string, unknown>;
  for (const path of paths) {
    let parent: any = out;
    for (const step of path.slice(0, -1)) parent = parent?.[step];
    const last = path[path.length - 1];
    if (!parent || typeof parent !== "object" || isSecretValue(parent)) continue;
    const v = parent[last];
    if (v === undefined || v === null || v === UNKNOWN || isSecretValue(v)) continue;
    parent[last] = secretValue(v);
  }
  return out as T;
}
