// What a refresh reports: the live object against what the program declared, through the
// resource's own diff (the comparison the engine makes of a refresh), so a read gives back the
// state's inputs untouched unless something really changed, and then names each change.
import { type DriftChange } from "./keyed";
import { type DiffResult, type ResourceDefinition, same } from "./resources/framework";

export { DRIFT_OUTPUT, type DriftChange } from "./keyed";

type Props = Record<string, unknown>;

/** The top-level property a path belongs to: `envVars[2].value` -> `envVars`. */
const topLevel = (path: string) => path.split(/[.[]/, 1)[0];

export interface Drift {
  /** The resource's diff finds a change (the engine's refresh then reports it). */
  changes: boolean;
  /** The top-level inputs that changed. */
  keys: string[];
  /** Each change, by path. */
  paths: DriftChange[];
}

/**
 * The live object (`live`, outputs as read) against the declared inputs: the resource's diff
 * decides what changed, keyed lists are compared item by item, anything else by the diff's paths.
 */
export async function driftOf(def: ResourceDefinition, id: string, live: Props, declared: Props): Promise<Drift> {
  let d: DiffResult;
  try {
    d = def.diff ? await def.diff(id, live as never, withUnmanaged(def, live, declared) as never) : { changes: !same(def.inputsOf?.(live as never), declared) };
  } catch {
    // A diff that refuses the declared inputs (an imported site's placeholder path): report what differs.
    const view = (def.inputsOf?.(live as never) ?? {}) as Props;
    const keys = Object.keys(declared).filter((k) => !k.startsWith("__") && !same(view[k], declared[k]));
    return { changes: true, keys, paths: keys.map((k) => ({ path: [k], kind: "update" })) };
  }
  if (!d.changes) return { changes: false, keys: [], paths: [] };
  const detailed = Object.entries(d.detailedDiff ?? {});
  const keys = [...new Set([...detailed.map(([p]) => topLevel(p)), ...(d.replaces ?? [])])];
  const view = (def.inputsOf?.(live as never) ?? {}) as Props;
  const paths: DriftChange[] = [];
  for (const key of keys) {
    const idField = def.keyedLists?.[key];
    const byKey = idField ? keyedChanges(key, idField, declared[key], view[key]) : undefined;
    if (byKey?.length) paths.push(...byKey);
    else {
      const under = detailed.filter(([p]) => topLevel(p) === key);
      // The diff ran from the live object to the declared inputs: an item it adds is one the live
      // object lacks, so the refresh's kind (state to live) is the other way round.
      if (under.length) for (const [p, c] of under) paths.push({ path: splitPath(p), kind: c.kind === "add" ? "delete" : c.kind === "delete" ? "add" : c.kind });
      else paths.push({ path: [key], kind: declared[key] === undefined ? "add" : view[key] === undefined ? "delete" : "update" });
    }
  }
  return { changes: true, keys, paths };
}

/**
 * `inputs`, with each input they do not hold (nor `also`, when given) taken from what the outputs
 * stand for: an input the program leaves alone (an import may leave one out, for the program to
 * add later) is compared with itself, so it is never a change.
 */
export function withUnmanaged(def: ResourceDefinition, outputs: Props, inputs: Props, also?: Props): Props {
  const view = def.inputsOf?.(outputs as never) as Props | undefined;
  if (!view) return inputs;
  const missing = Object.keys(view).filter((k) => !(k in inputs) && !(also && k in also) && view[k] !== undefined);
  return missing.length ? { ...Object.fromEntries(missing.map((k) => [k, view[k]])), ...inputs } : inputs;
}

/** The state's inputs with each changed top-level input replaced by its live value. */
export function overlay(declared: Props, live: Props, keys: string[]): Props {
  const out = { ...declared };
  for (const k of keys) {
    if (live[k] === undefined) delete out[k];
    else out[k] = live[k];
  }
  return out;
}

/** Items of a keyed list compared by key: each field that differs, each item added or gone. */
function keyedChanges(list: string, idField: string, declared: unknown, live: unknown): DriftChange[] {
  const index = (v: unknown) => new Map((Array.isArray(v) ? v : []).map((x: Props) => [String(x?.[idField]), x]));
  const before = index(declared);
  const after = index(live);
  const out: DriftChange[] = [];
  for (const [k, was] of before) {
    const now = after.get(k);
    if (!now) out.push({ path: [list, k], kind: "delete" });
    else for (const f of new Set([...Object.keys(was), ...Object.keys(now)])) {
      if (f !== idField && !same(was[f], now[f])) out.push({ path: [list, k, f], kind: was[f] == null ? "add" : now[f] == null ? "delete" : "update" });
    }
  }
  for (const k of after.keys()) if (!before.has(k)) out.push({ path: [list, k], kind: "add" });
  return out;
}

/** `corsRules[0].allowedOrigins[1]`, `labels["a.b"]` -> its segments. */
export function splitPath(path: string): string[] {
  const out: string[] = [];
  const re = /([^.[\]"]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) out.push(m[1] ?? m[2] ?? JSON.parse(`"${m[3]}"`));
  return out;
}

// ---- keyed lists as maps (the dynamic SDK) ----

/** A keyed list given as a map by its key (`{MODE: {value}}`), as the list the handlers take. */
export function listsOf<T extends Props | undefined>(def: ResourceDefinition, props: T): T {
  if (!props || !def.keyedLists) return props;
  let out: Props | undefined;
  for (const [list, idField] of Object.entries(def.keyedLists)) {
    const v = props[list];
    if (!isMap(v)) continue;
    out ??= { ...props };
    out[list] = Object.entries(v).map(([k, item]) => ({ [idField]: k, ...(item as Props) }));
  }
  return (out ?? props) as T;
}

/** Each keyed list as a map by its key, leaving out the key inside each item. */
export function mapsOf<T extends Props | undefined>(def: ResourceDefinition, props: T): T {
  if (!props || !def.keyedLists) return props;
  let out: Props | undefined;
  for (const [list, idField] of Object.entries(def.keyedLists)) {
    const v = props[list];
    if (!Array.isArray(v) || !v.every((x) => x && typeof x === "object" && typeof x[idField] === "string")) continue;
    out ??= { ...props };
    out[list] = Object.fromEntries(v.map(({ [idField]: k, ...rest }) => [k, rest]));
  }
  return (out ?? props) as T;
}

const isMap = (v: unknown): v is Props => !!v && typeof v === "object" && !Array.isArray(v);

/** True when `props` holds a keyed list as a map. */
export function hasMaps(def: ResourceDefinition, props: Props | undefined): boolean {
  return !!props && Object.keys(def.keyedLists ?? {}).some((k) => isMap(props[k]));
}
