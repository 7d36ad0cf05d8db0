// Logical names for adopted objects, derived from their platform names. Each is also the variable
// `pulumi import` declares in the generated program, so it must be a valid identifier in
// TypeScript, Python and Go, unique even where Python's snake_case folds case, and stable: the same
// workspace gives the same names on every run.

/** Words no name may be: keywords of the three languages and names the generated code uses. */
const RESERVED = new Set(
  [
    // TypeScript / JavaScript
    "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum", "export",
    "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null", "return", "super",
    "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "let", "static", "yield", "await",
    "implements", "interface", "package", "private", "protected", "public", "undefined", "arguments", "eval",
    // Python
    "and", "as", "assert", "async", "def", "del", "elif", "except", "from", "global", "is", "lambda", "nonlocal", "not", "or",
    "pass", "raise", "none", "self",
    // Go
    "chan", "defer", "fallthrough", "func", "go", "goto", "map", "range", "select", "struct", "type", "string", "error", "ctx", "err",
    // What the generated programs and the secrets step declare
    "pulumi", "cloudplatform", "config", "cfg", "main", "opts", "args",
  ].map((w) => w.toLowerCase()),
);

/** `["shop", "web-app"]` -> `shopWebApp`; letters and digits only, starting with a letter. */
export function camelName(parts: string[]): string {
  const words = parts.flatMap((p) => p.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^A-Za-z0-9]+/g, " ").trim().split(" ")).filter(Boolean);
  const joined = words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1))).join("");
  return joined;
}

export interface Nameable {
  /** Resource kind, e.g. "Project". */
  kind: string;
  /** Platform names from the outermost container to the object, e.g. ["shop", "prod", "web"]. */
  parts: string[];
  /** Breaks ties between objects whose names are the same (their platform id). */
  tiebreak: string;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * One name per item, in the items' order. A name that is empty, starts with a digit or is a
 * reserved word gets its kind added; names that fold to the same lowercase form get their kind
 * added, then a number in tiebreak order.
 */
export function assignNames(items: Nameable[]): string[] {
  const base = items.map((it) => {
    const n = camelName(it.parts);
    if (!n) return lowerFirst(it.kind);
    if (/^[0-9]/.test(n)) return lowerFirst(it.kind) + n;
    return RESERVED.has(n.toLowerCase()) ? n + it.kind : n;
  });
  const fold = (s: string) => s.toLowerCase();
  const count = (names: string[]) => names.reduce((m, n) => m.set(fold(n), (m.get(fold(n)) ?? 0) + 1), new Map<string, number>());
  const first = count(base);
  const withKind = base.map((n, i) => (first.get(fold(n))! > 1 && !n.endsWith(items[i].kind) ? n + items[i].kind : n));
  const second = count(withKind);
  const order = items.map((_, i) => i).sort((a, b) => (items[a].tiebreak < items[b].tiebreak ? -1 : items[a].tiebreak > items[b].tiebreak ? 1 : a - b));
  const taken = new Set(withKind.filter((n) => second.get(fold(n)) === 1).map(fold));
  const out = [...withKind];
  const seen = new Map<string, number>();
  for (const i of order) {
    const n = withKind[i];
    if (second.get(fold(n)) === 1) continue;
    let k = (seen.get(fold(n)) ?? 0) + 1;
    let candidate = k === 1 ? n : `${n}${k}`;
    while (k > 1 && taken.has(fold(candidate))) candidate = `${n}${++k}`;
    seen.set(fold(n), k);
    taken.add(fold(candidate));
    out[i] = candidate;
  }
  return out;
}
