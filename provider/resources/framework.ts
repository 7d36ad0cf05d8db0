// What every resource handler is made of: plain functions over plain JSON, with helpers for
// check (zod, unknown-tolerant), diff (update vs replace per property) and 404 handling.
import { z } from "zod";
import type { CloudPlatformClient } from "../client";
import { NotFoundError } from "../client";
import type { SecretPath } from "../secrets";

/** The engine's placeholder for a value not known until apply (preview of a dependent resource). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export interface Context {
  client: CloudPlatformClient;
  /** The configured workspace, or the only one the key sees. */
  workspaceId(): Promise<string>;
  log(message: string): void;
  /** The resource's stable identity (its URN where the engine gives one); creates derive their Idempotency-Key from it. */
  identity?: string;
  /** The operation's time limit (customTimeouts); waiters never wait past it. */
  timeoutMs?: number;
  /**
   * The inputs the program declares in this run for the resource of `identity`, as checked: what
   * a delete of an object it leaves behind (a replacement, a pending delete) may honour.
   */
  declared?(identity: string): Record<string, unknown> | undefined;
}

export interface CheckFailure {
  property: string;
  reason: string;
}
export interface CheckResult<I> {
  inputs?: I;
  failures?: CheckFailure[];
}
export interface DiffResult {
  changes?: boolean;
  replaces?: string[];
  stables?: string[];
  deleteBeforeReplace?: boolean;
  /** What changed, by property path (`envVars[2].value`); the native plugin shows it, the dynamic adapter ignores it. */
  detailedDiff?: Record<string, PropertyChange>;
}
export type PropertyChangeKind = "add" | "delete" | "update";
export interface PropertyChange {
  kind: PropertyChangeKind;
  /** The change replaces the object. */
  replace: boolean;
}
export interface CreateResult<O> {
  id: string;
  outs: O;
}
export interface ReadResult<O, I = unknown> {
  /** Empty when the object is gone: the engine then drops it from state. */
  id?: string;
  props?: O;
  inputs?: I;
}

/** Who is being checked: check derives generated names from it (the native plugin's URN, the dynamic SDK's identity). */
export interface CheckContext {
  /** The resource's logical name. */
  name?: string;
  /** Its stable identity: the URN, or the dynamic SDK's identity string. */
  identity?: string;
}

export interface ResourceDefinition<I extends Record<string, unknown> = any, O extends Record<string, unknown> = any> {
  /** Pulumi type token of the native provider, e.g. `cloudplatform:index:Project`. */
  token: string;
  description: string;
  /**
   * What `pulumi import`, `import -f` and the `import` option take as the id (e.g.
   * `<zoneId>/<recordId>`), and what a bare form means. The read parses it and fills every output.
   */
  importId: { format: string; note?: string };
  inputs: z.ZodObject<any>;
  outputs: z.ZodObject<any>;
  /**
   * Every replacement deletes the old object first (the SDKs make the `deleteBeforeReplace` option
   * default to true): its name (key, path, address, record) is unique, and a forced replacement
   * (`pulumi up --replace`), which the engine makes without asking diff, would otherwise send the
   * old create's Idempotency-Key and get the old object back.
   */
  deleteBeforeReplace?: boolean;
  /** Output properties that are always secret. */
  secretOutputs?: string[];
  /**
   * Outputs that no in-place update changes, beyond the inputs it sets (ids, placement, creation
   * time...). A preview of an update keeps these and every unchanged input; any other output is
   * unknown until the update runs. A function sees the old outputs and the new inputs, for outputs
   * that only some changes touch (a rename changes a service's URL).
   */
  stableOutputs?: string[] | ((olds: O, news: I) => string[]);
  /** Inputs whose output is not the input as checked (another form, filled in by the platform). */
  derivedOutputs?: string[];
  /** Values nested in outputs (and inputs) that are secret, by path: one env var's value, not the whole list. */
  secretPaths?(props: Record<string, unknown>): SecretPath[];
  /**
   * List inputs whose items are known by one field (`envVars` by `key`, `secretFiles` by `path`):
   * drift names an item by it, secrets follow it, and the dynamic SDK keeps the list as a map by it.
   */
  keyedLists?: Record<string, string>;
  /**
   * The inputs these outputs stand for, in check's normal form: what read reports, and what a
   * refresh of the dynamic SDK (which is not given the state's inputs) compares against.
   */
  inputsOf?(outputs: O): I;
  check?(olds: Partial<I>, news: Record<string, unknown>, who?: CheckContext): CheckResult<I> | Promise<CheckResult<I>>;
  diff?(id: string, olds: O, news: I): DiffResult | Promise<DiffResult>;
  create(ctx: Context, inputs: I): Promise<CreateResult<O>>;
  read?(ctx: Context, id: string, olds: O): Promise<ReadResult<O, I>>;
  update?(ctx: Context, id: string, olds: O, news: I): Promise<{ outs: O }>;
  delete?(ctx: Context, id: string, olds: O): Promise<void>;
}

export const defineResource = <I extends Record<string, unknown>, O extends Record<string, unknown>>(
  def: ResourceDefinition<I, O>,
) => def;

/**
 * The object exists, but did not become healthy (a deploy failed, a verification timed out).
 * The engine keeps it in state with these reasons, so the next `up` updates it instead of making
 * a second one.
 */
export class ResourceInitError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[] = [message],
  ) {
    super(message);
    this.name = "ResourceInitError";
  }
}

export function isUnknown(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(isUnknown);
  if (v && typeof v === "object") return Object.values(v).some(isUnknown);
  return false;
}

/**
 * The outputs an in-place update keeps, as far as they are known before it runs: each input it
 * leaves as it was and each stable output (the old values), and each input it sets (the new
 * value, unless the platform derives the output from it). `oldInputs` are the inputs of the last
 * update; without them, the old outputs stand in.
 */
export function keptByUpdate(def: ResourceDefinition, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs?: Record<string, unknown>): {
  kept: string[];
  set: string[];
} {
  // Inputs check adds (a site's content hash) count as inputs too.
  const inputs = new Set([...Object.keys(def.inputs.shape), ...Object.keys(news)]);
  const stable = new Set(stableOutputsOf(def, olds, news));
  const kept: string[] = [];
  const set: string[] = [];
  for (const key of Object.keys(def.outputs.shape)) {
    if (!inputs.has(key)) {
      if (stable.has(key)) kept.push(key);
    } else if (!isUnknown(news[key]) && same((oldInputs ?? olds)[key], news[key])) {
      kept.push(key);
    } else if (news[key] !== undefined && !isUnknown(news[key]) && !def.derivedOutputs?.includes(key)) {
      set.push(key);
    }
  }
  return { kept, set };
}

/** The outputs no update from `olds` to `news` changes (the definition's `stableOutputs`). */
export function stableOutputsOf(def: ResourceDefinition, olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  return typeof def.stableOutputs === "function" ? def.stableOutputs(olds as never, news as never) : def.stableOutputs ?? [];
}

/**
 * What a preview of an in-place update shows as the outputs: kept ones as they were, set ones as
 * the program gives them, and every other output unknown (dependants then show that they may change).
 */
export function previewUpdate(def: ResourceDefinition, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs?: Record<string, unknown>): Record<string, unknown> {
  const { kept, set } = keptByUpdate(def, olds, news, oldInputs);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(def.outputs.shape)) out[key] = UNKNOWN;
  // A kept output the platform left unset is known to be unset (missing would read as unknown).
  for (const key of kept) out[key] = olds[key] ?? null;
  for (const key of set) out[key] = news[key];
  return out;
}

/** A cross-property rule: the failures it finds in the inputs (each naming its property). */
export type Rule<I> = (inputs: I) => CheckFailure[];

/** Thrown by the inputs a rule sees when it reads a property that is unknown or invalid. */
const SKIP = Symbol("skip rule");

/**
 * Runs each rule over the valid inputs. A rule that reads a property whose value is not known yet
 * (or already failed its own check) is skipped, so every rule whose own inputs are known runs,
 * even while others are still unknown at preview.
 */
export function runRules<I>(rules: Rule<I> | Rule<I>[], known: Record<string, unknown>, skip: Set<string>): CheckFailure[] {
  const guarded = new Proxy(known, {
    get(target, key, receiver) {
      if (typeof key === "string" && skip.has(key)) throw SKIP;
      return Reflect.get(target, key, receiver);
    },
  }) as I;
  const out: CheckFailure[] = [];
  for (const rule of Array.isArray(rules) ? rules : [rules]) {
    try {
      out.push(...rule(guarded));
    } catch (err) {
      if (err !== SKIP) throw err;
    }
  }
  return out;
}

/**
 * Validates inputs with the resource's zod schema, then the cross-property rules. A property whose
 * value is not known yet is skipped, and so is each rule that reads it; every other failure names
 * its property and the rule.
 */
export function checkWith<I>(
  schema: z.ZodObject<any>,
  news: Record<string, unknown>,
  rules: Rule<I> | Rule<I>[] = [],
): CheckResult<I> {
  const known: Record<string, unknown> = {};
  const shape = schema.shape as Record<string, z.ZodType>;
  const failures: CheckFailure[] = [];
  for (const key of Object.keys(news)) {
    if (key === "__provider") continue;
    if (!(key in shape)) failures.push({ property: key, reason: `unknown property '${key}'` });
  }
  const skip = new Set<string>();
  for (const [key, field] of Object.entries(shape)) {
    const value = news[key];
    if (isUnknown(value)) {
      skip.add(key);
      continue;
    }
    const r = field.safeParse(value);
    if (!r.success) {
      skip.add(key);
      for (const issue of r.error.issues) {
        const path = propertyPath(key, issue.path);
        failures.push({ property: path, reason: `${path}: ${value === undefined ? "is required" : issue.message}` });
      }
    } else if (r.data !== undefined) {
      known[key] = r.data;
    }
  }
  failures.push(...runRules(rules, known, skip));
  // Unknown values pass through untouched so the engine can fill them in later.
  const inputs = { ...known } as Record<string, unknown>;
  for (const [k, v] of Object.entries(news)) if (isUnknown(v)) inputs[k] = v;
  return failures.length ? { failures } : { inputs: inputs as I };
}

/** A property path as Pulumi reads it: `corsRules[0].allowedMethods[0]`, `labels["a b"]`. */
function propertyPath(key: string, path: readonly PropertyKey[] = []): string {
  let out = key;
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`;
  }
  return out;
}

export interface DiffSpec {
  /** Properties a route can change in place. */
  update?: string[];
  /** Properties no route can change: a change replaces the object. */
  replace?: string[];
  /** Optional properties where "not set" means "whatever the platform chose", so no drift. */
  defaulted?: string[];
  deleteBeforeReplace?: boolean;
}

/** Per-property diff of the program's inputs against the last known state. */
export function diffWith(olds: Record<string, unknown>, news: Record<string, unknown>, spec: DiffSpec): DiffResult {
  const changed = (key: string): boolean => {
    const n = news[key];
    if (isUnknown(n)) return true;
    if (n === undefined && spec.defaulted?.includes(key)) return false;
    return !same(olds[key], n);
  };
  const replaces = (spec.replace ?? []).filter(changed);
  const updates = (spec.update ?? []).filter(changed);
  const detailedDiff: Record<string, PropertyChange> = {};
  for (const key of updates) detailPaths(key, olds[key], news[key], false, detailedDiff);
  for (const key of replaces) detailPaths(key, olds[key], news[key], true, detailedDiff);
  return {
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: spec.deleteBeforeReplace,
    detailedDiff,
  };
}

/** The changed leaves under one property: list items by index, object fields by name. */
export function detailPaths(path: string, a: unknown, b: unknown, replace: boolean, out: Record<string, PropertyChange>): void {
  const absent = (v: unknown) => v === undefined || v === null;
  if (same(a, b)) return;
  if (absent(a)) {
    out[path] = { kind: "add", replace };
  } else if (absent(b)) {
    out[path] = { kind: "delete", replace };
  } else if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) detailPaths(`${path}[${i}]`, a[i], b[i], replace, out);
  } else if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const sub = /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
      detailPaths(sub, a[k], b[k], replace, out);
    }
  } else {
    out[path] = { kind: "update", replace };
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * A verification's diff: replaced when the object it verifies changes (`keys`), and run again
 * while the object is not verified (`done` false); a new timeout alone changes nothing.
 */
export function verificationDiff(olds: object, news: object, keys: string[], done: boolean): DiffResult {
  const o = olds as Record<string, unknown>;
  const n = news as Record<string, unknown>;
  const replaces = keys.filter((k) => isUnknown(n[k]) || (n[k] !== undefined && n[k] !== o[k]));
  return { changes: replaces.length > 0 || !done, replaces };
}

/** Deep equality where null, undefined and a missing key are the same. */
export function same(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null) return b === undefined || b === null;
  if (b === undefined || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => same(x, b[i]));
  }
  if (typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    for (const k of keys) if (!same((a as any)[k], (b as any)[k])) return false;
    return true;
  }
  return a === b;
}

/**
 * A read with no previous state: an import. Nothing then says what the program declares, so a
 * handler whose read reports only declared parts reports all it finds instead.
 */
export function isImport(olds: object | undefined): boolean {
  return !olds || Object.keys(olds).every((k) => k === "__provider");
}

/**
 * One part of a request path taken from state: a missing part (state written before the provider
 * recorded it) is refused, so a request never names `/undefined/` and a 404 there is never taken
 * for "already gone".
 */
export function statePart(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "" || isUnknown(value)) {
    throw new Error(`the resource's state has no ${what}, so the request cannot name the object; run \`pulumi refresh\` to fill it in, then try again`);
  }
  return value;
}

/**
 * Splits an import id of the form `a/b` (or with `sep`) at its first separator; a part-less id
 * gives `[undefined, id]`. Platform ids hold no separator, so an id with one is the import form.
 */
export function splitFirst(id: string, sep = "/"): [string | undefined, string] {
  const i = id.indexOf(sep);
  return i <= 0 ? [undefined, id] : [id.slice(0, i), id.slice(i + sep.length)];
}

/**
 * The workspace a delete names. State written before the provider recorded the workspace (an old
 * import) has none: the object is then looked for in the configured workspace, and when it is not
 * there the delete fails instead of taking a 404 in a guessed workspace for "already gone".
 */
export async function workspaceOf(ctx: Context, recorded: string | null | undefined, what: string, isIn: (workspaceId: string) => Promise<boolean>): Promise<string> {
  if (recorded) return recorded;
  const configured = await ctx.workspaceId();
  if (await isIn(configured)) return configured;
  throw new Error(
    `${what}: the state does not record its workspace, and the configured workspace ${configured} does not hold it, so nothing was done to it. ` +
      "Run `pulumi refresh` (it records the workspace, or drops the object from state when it is gone), then run the command again.",
  );
}

/** A finder: the object, or undefined when the API answers 404. */
export async function findOrUndefined<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** A walk of a whole list: `n` numbers it among the walks started, so a read can tell one begun after it. */
interface Walk {
  n: number;
  items: Promise<unknown[] | undefined>;
}
/** Walks under way, by client, then by what they list: reads that overlap share one. */
const walks = new WeakMap<object, Map<string, Walk>>();
let walksStarted = 0;

/**
 * A search of a list that stands in for a GET of one object the API lacks (buckets, DNS zones and
 * records, a service's variables, files and domains). A refresh reads many such objects at once;
 * each read joins the walk under way, so the calls are one list per batch of reads, not one (or one
 * per page) per object. An object found is as the walk saw it. An object missing from a walk begun
 * before the read may be newer than the walk: the read takes the answer of a walk begun after it
 * (joining one already started for another such read, so many objects deleted by hand cost one more
 * walk, not one each), and "gone" is always that answer. Undefined also when the API answers 404
 * (the workspace, zone or service is gone). `fresh`: only a walk begun after the call answers (a
 * create's replay, or a check that a key is free: is the object there now).
 */
export async function findShared<T>(ctx: Context, key: string, list: () => Promise<T[]>, match: (item: T) => boolean, opts: { fresh?: boolean } = {}): Promise<T | undefined> {
  let byKey = walks.get(ctx.client);
  if (!byKey) walks.set(ctx.client, (byKey = new Map()));
  const asked = walksStarted;
  const current = byKey.get(key);
  if (current && !opts.fresh) {
    const found = ((await current.items) as T[] | undefined)?.find(match);
    if (found) return found;
  }
  let walk = byKey.get(key);
  if (!walk || walk.n <= asked) {
    const started: Walk = { n: ++walksStarted, items: findOrUndefined(list).finally(() => byKey.get(key) === started && byKey.delete(key)) };
    byKey.set(key, (walk = started));
  }
  return ((await walk.items) as T[] | undefined)?.find(match);
}

/** A delete: a 404 means it is already gone, which is what was asked. */
export async function deleteIgnoringNotFound(remove: () => Promise<void>): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}

/** Drops keys whose value is undefined, so state and bodies stay minimal. */
export function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** A zod field that accepts any string but documents the known values: enumerations are open sets (spec §9). */
export function openEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.string().meta({ knownValues: [...values] }) as unknown as z.ZodType<T[number] | (string & {})>;
}
