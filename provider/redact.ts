// Secret values out of error and log text. An API error may echo what it was sent (a secret env
// var's value, a secret file's content, a password), in any form a body carries it: as sent, JSON-
// escaped, URL-encoded, or one line of a multi-line value. Every value the schema marks secret is
// masked in each of these forms before a message leaves the provider.
import { redactKeys, redactUrlCredentials } from "./client";
import type { ResourceDefinition } from "./resources/framework";
import { isSecretValue, type SecretPath } from "./secrets";

/** Shorter values (and lines) are not masked: they would mask ordinary words of the message. */
export const MIN_SECRET_CHARS = 4;
export const MASK = "***";

/** The strings inside a value: itself, or every string in an object or array. */
function stringsIn(v: unknown, out: Set<string>): void {
  if (typeof v === "string") out.add(v);
  else if (isSecretValue(v)) stringsIn(v.value, out);
  else if (Array.isArray(v)) v.forEach((x) => stringsIn(x, out));
  else if (v && typeof v === "object") Object.values(v).forEach((x) => stringsIn(x, out));
}

/** Every secret string of these properties: whole secret outputs, nested secret paths, values marked secret. */
export function secretStrings(def: Pick<ResourceDefinition, "secretOutputs" | "secretPaths"> | undefined, ...propsList: (Record<string, unknown> | undefined)[]): string[] {
  const out = new Set<string>();
  const marked = (v: unknown): void => {
    if (isSecretValue(v)) stringsIn(v.value, out);
    else if (Array.isArray(v)) v.forEach(marked);
    else if (v && typeof v === "object") Object.values(v).forEach(marked);
  };
  for (const props of propsList) {
    if (!props || typeof props !== "object") continue;
    for (const key of def?.secretOutputs ?? []) stringsIn(props[key], out);
    let paths: SecretPath[] = [];
    try {
      paths = def?.secretPaths?.(props) ?? [];
    } catch {
      // Malformed props (a check failure): the marked values below still count.
    }
    for (const path of paths) stringsIn(path.reduce<any>((v, step) => v?.[step], props), out);
    marked(props);
  }
  return [...out];
}

/** The forms a value takes in an echoed body. */
function formsOf(value: string): string[] {
  const forms = new Set<string>();
  const add = (s: string) => {
    if (s.length < MIN_SECRET_CHARS) return;
    forms.add(s);
    const json = JSON.stringify(s).slice(1, -1);
    forms.add(json);
    forms.add(JSON.stringify(json).slice(1, -1));
    forms.add(encodeURIComponent(s));
  };
  add(value);
  add(value.trim());
  for (const line of value.split(/\r\n|\r|\n/)) add(line.trim());
  return [...forms];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Masks the given secret values, platform keys and URL credentials in any text. */
export class Redactor {
  readonly #pattern?: RegExp;

  constructor(values: Iterable<string>) {
    const forms = new Set<string>();
    for (const v of values) if (typeof v === "string") for (const f of formsOf(v)) forms.add(f);
    // Longest first, so a value is masked whole before any of its lines.
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    if (sorted.length) this.#pattern = new RegExp(sorted.map(escapeRe).join("|"), "g");
  }

  redact(text: string): string {
    const masked = this.#pattern ? text.replace(this.#pattern, MASK) : text;
    return redactUrlCredentials(redactKeys(masked));
  }
}
