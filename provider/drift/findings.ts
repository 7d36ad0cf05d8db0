// Engine events of a refresh preview -> per-resource findings. Since CLI 3.x the engine diffs a
// refresh through the provider's own Diff (live inputs against the state's, ignoreChanges of the
// state applied), so what the provider calls no change (the platform's own changes, normal forms)
// never shows here. Secret values arrive as "[secret]" (the events are made without
// --show-secrets); any secret left marked by its signature is masked here too.
import type { EngineEvent, StepEventMetadata } from "@pulumi/pulumi/automation";
import { DRIFT_OUTPUT, type DriftChange, KEYED_LISTS } from "../keyed";
import { errorText } from "./failures";
import type { Change, Finding } from "./types";
import { unnamedChange, unnamedIgnored } from "./unnamed";

export const SECRET = "[secret]";
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
/** Inputs that are bookkeeping, never drift: the dynamic provider's code and a create's identity. */
const HIDDEN = new Set(["__provider", "__identity", "__cloudplatformIdentity"]);

/** `envVars[1].value`, `tags["a.b"]` -> ["envVars", "1", "value"], ["tags", "a.b"]. */
export function parsePath(path: string): string[] {
  const out: string[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) out.push(m[1] ?? m[2] ?? JSON.parse(`"${m[3]}"`));
  return out;
}

/** The keyed lists of a resource type (`cloudplatform:index:Service`, or the dynamic SDK's `pulumi-nodejs:dynamic/cloudplatform:Service`). */
export function keyedListsOf(resourceType: string): Record<string, string> {
  const m = /(?:^cloudplatform:index:|dynamic\/cloudplatform:)(\w+)$/.exec(resourceType);
  return (m && KEYED_LISTS[m[1]]) || {};
}

/**
 * A path as people read it: list items by index (`corsRules[0]`), a keyed list's items by their
 * key (`envVars[MODE].value`, `secretFiles["/etc/app.json"]`), fields by name.
 */
export function pathText(path: string[], resourceType = ""): string {
  const keyed = keyedListsOf(resourceType);
  return path.map((p, i) => {
    if (i === 1 && keyed[path[0]]) return /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `[${p}]` : `[${JSON.stringify(p)}]`;
    if (/^\d+$/.test(p)) return `[${p}]`;
    return i ? `.${p}` : p;
  }).join("");
}

/**
 * The value at `path`; a secret met on the way hides everything under it. In a keyed list (list
 * `path[0]` of `keyed`), the second segment is an item's key, whether the inputs hold the list
 * (the native SDK) or a map by key (the dynamic SDK).
 */
export function valueAt(obj: unknown, path: string[], keyed: Record<string, string> = {}): unknown {
  let cur: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    const k = path[i];
    if (isSecret(cur)) return SECRET;
    if (cur === null || typeof cur !== "object") return undefined;
    const idField = i === 1 ? keyed[path[0]] : undefined;
    cur = Array.isArray(cur) && idField ? cur.find((x) => x && typeof x === "object" && (x as Record<string, unknown>)[idField] === k) : (cur as Record<string, unknown>)[k];
  }
  return mask(cur);
}

function isSecret(v: unknown): boolean {
  return v === SECRET || (!!v && typeof v === "object" && SECRET_SIG in (v as object));
}

/** A copy with every secret replaced by "[secret]". */
export function mask(v: unknown): unknown {
  if (isSecret(v)) return SECRET;
  if (Array.isArray(v)) return v.map(mask);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mask(x)]));
  return v;
}

function containsSecret(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecret);
  if (v && typeof v === "object") return Object.values(v).some(containsSecret);
  return false;
}

const KIND: Record<string, Change["type"]> = {
  add: "create", "add-replace": "create", delete: "delete", "delete-replace": "delete", update: "update", "update-replace": "update",
};

/** The path each change had in the state's lists (`envVars[0]`), for ignoreChanges written that way. */
const indexPaths = new WeakMap<Change, string[]>();

/** One change per path; a secret on either side makes both sides "[secret]". */
function change(type: Change["type"], path: string[], from: unknown, to: unknown): Change {
  if (containsSecret(from) || containsSecret(to)) {
    return { type, path, ...(type !== "create" ? { from: SECRET } : {}), ...(type !== "delete" ? { to: SECRET } : {}) };
  }
  return { type, path, ...(type !== "create" ? { from } : {}), ...(type !== "delete" ? { to } : {}) };
}

/**
 * An engine path (`envVars[2].value`, indices into the state's sorted list) with a keyed list's
 * index replaced by the item's key, read from either side.
 */
function byKey(path: string[], olds: Record<string, unknown>, news: Record<string, unknown>, keyed: Record<string, string>): string[] {
  const idField = keyed[path[0]];
  if (!idField || path.length < 2 || !/^\d+$/.test(path[1])) return path;
  const idAt = (side: Record<string, unknown>) => {
    const list = side[path[0]];
    const item = Array.isArray(list) ? (list[Number(path[1])] as Record<string, unknown> | undefined) : undefined;
    return typeof item?.[idField] === "string" ? (item[idField] as string) : undefined;
  };
  const id = idAt(olds) ?? idAt(news);
  return id === undefined ? path : [path[0], id, ...path.slice(2)];
}

/** A path naming a keyed list's item by key, with the item's index in the state's list instead. */
function byIndex(path: string[], olds: Record<string, unknown>, keyed: Record<string, string>): string[] {
  const idField = keyed[path[0]];
  const list = olds[path[0]];
  if (!idField || path.length < 2 || !Array.isArray(list)) return path;
  const i = list.findIndex((x) => x && typeof x === "object" && (x as Record<string, unknown>)[idField] === path[1]);
  return i < 0 ? path : [path[0], String(i), ...path.slice(2)];
}

/**
 * The changelog of one refreshed resource. The provider's own account of the change comes first
 * (its read's hidden `__drift` output: every change by path, keyed list items by key, secret ones
 * included); else the engine's detailed diff; else a walk of the two input sets.
 */
export function changelog(m: StepEventMetadata): Change[] {
  const olds = (m.old?.inputs ?? {}) as Record<string, unknown>;
  const news = (m.new?.inputs ?? {}) as Record<string, unknown>;
  const keyed = keyedListsOf(m.type);
  // A top-level input the state does not hold is one the program does not set: `up` leaves it
  // alone, so a live value for it (a platform default) is not drift.
  const managed = (p: string[]) => !HIDDEN.has(p[0]) && p[0] in olds;
  const sorted = (changes: Change[]) => changes.sort((a, b) => (a.path.join("\u0000") < b.path.join("\u0000") ? -1 : 1));
  const reported = (m.new?.outputs as Record<string, unknown> | undefined)?.[DRIFT_OUTPUT];
  if (Array.isArray(reported) && reported.length) {
    return sorted((reported as DriftChange[]).filter((c) => Array.isArray(c?.path) && managed(c.path)).map((d) => {
      const c = change(KIND[d.kind] ?? "update", d.path, valueAt(olds, d.path, keyed), valueAt(news, d.path, keyed));
      const raw = byIndex(d.path, olds, keyed);
      if (raw !== d.path) indexPaths.set(c, raw);
      return c;
    }));
  }
  const detailed = Object.entries(m.detailedDiff ?? {}).map(([p, d]) => [parsePath(p), d] as const).filter(([p]) => managed(p));
  if (detailed.length) {
    return sorted(detailed.map(([raw, d]) => {
      const path = byKey(raw, olds, news, keyed);
      const c = change(KIND[d.diffKind] ?? "update", path, valueAt(olds, path, keyed), valueAt(news, path, keyed));
      if (path !== raw) indexPaths.set(c, raw);
      return c;
    }));
  }
  const keys = m.diffs?.length ? m.diffs : [...new Set([...Object.keys(olds), ...Object.keys(news)])];
  const out: Change[] = [];
  for (const k of keys.filter((k) => managed([k])).sort()) walk([k], olds[k], news[k], out, keyed[k]);
  return out;
}

function walk(path: string[], a: unknown, b: unknown, out: Change[], idField?: string): void {
  if (isSecret(a) || isSecret(b)) {
    if (JSON.stringify(a) !== JSON.stringify(b) || a === SECRET) {
      // Two masked values cannot be compared here; the engine named the property, so it changed.
      out.push(change(a === undefined ? "create" : b === undefined ? "delete" : "update", path, a, b));
    }
    return;
  }
  // A keyed list is walked item by item, by key.
  const items = (v: unknown) => (Array.isArray(v) && idField ? Object.fromEntries(v.map((x) => [(x as Record<string, unknown>)?.[idField], x])) : v);
  a = items(a);
  b = items(b);
  const obj = (v: unknown) => v !== null && typeof v === "object";
  if (obj(a) && obj(b) && Array.isArray(a) === Array.isArray(b)) {
    const ka = Object.keys(a as object), kb = Object.keys(b as object);
    for (const k of [...new Set([...ka, ...kb])]) walk([...path, k], (a as any)[k], (b as any)[k], out);
    return;
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  out.push(change(a === undefined ? "create" : b === undefined ? "delete" : "update", path, a, b));
}

/** Gathers a refresh preview's events into findings. */
export class FindingCollector {
  readonly findings: Finding[] = [];
  checked = 0;
  private readonly failed = new Map<string, Finding>();

  onEvent = (e: EngineEvent): void => {
    const out = e.resOutputsEvent?.metadata;
    if (out && !out.type.startsWith("pulumi:providers:") && (out.old ?? out.new)?.custom === true) {
      this.checked++;
      const base = { urn: out.urn, resourceType: out.type, ...(out.old?.id ? { id: out.old.id } : {}) };
      if (out.op === "delete") this.findings.push({ type: "deleted", ...base });
      else if (out.op === "update") {
        const log = changelog(out);
        if (log.length) this.findings.push({ type: "changed", ...base, changelog: log });
        else {
          const unnamed = unnamedChange(out);
          if (unnamed) this.findings.push({ type: "changed", ...base, changelog: [], ...unnamed });
        }
      }
    }
    const failed = e.resOpFailedEvent?.metadata;
    if (failed) this.unreadable(failed.urn, failed.type);
    const d = e.diagnosticEvent;
    if (d && d.severity === "error" && d.urn && !d.urn.endsWith("::pulumi:pulumi:Stack") && !/pulumi:pulumi:Stack::/.test(d.urn)) {
      const f = this.unreadable(d.urn);
      const msg = errorText(d.message.replace(/\u001b\[[0-9;]*m|<\{%[^%]*%\}>/g, "")).trim();
      if (msg && !f.message?.includes(msg)) f.message = f.message ? `${f.message}; ${msg}` : msg;
    }
  };

  private unreadable(urn: string, type?: string): Finding {
    let f = this.failed.get(urn);
    if (!f) {
      f = { type: "unreadable", urn, resourceType: type ?? urn.split("::")[2]?.split("$").pop() ?? "" };
      this.failed.set(urn, f);
      this.findings.push(f);
      this.checked++;
    }
    if (type) f.resourceType = type;
    return f;
  }
}

/** Does `path` fall under one of the `ignoreChanges` paths (`a.b`, `a[0]`, `a[*].b`, `*`)? */
export function ignored(path: string[], ignoreChanges: string[]): boolean {
  return ignoreChanges.some((raw) => {
    const ig = raw === "*" ? ["*"] : parsePath(raw.replace(/\[\*\]/g, ".*"));
    return ig.length <= path.length && ig.every((seg, i) => seg === "*" || seg === path[i]);
  });
}

/**
 * Drops the changes under each resource's `ignoreChanges`, kept in state: the engine hands them to
 * the provider's Diff on a refresh and applies them itself only when a provider answers "unknown",
 * and neither the plugin nor Pulumi's dynamic provider host applies them.
 */
export function withoutIgnored(findings: Finding[], ignoreByUrn: Map<string, string[]>): Finding[] {
  return findings.flatMap((f) => {
    const ig = ignoreByUrn.get(f.urn);
    if (f.type !== "changed" || !ig?.length) return [f];
    if (f.reason) return unnamedIgnored(f, ig) ? [] : [f];
    const changelog = (f.changelog ?? []).filter((c) => !ignored(c.path, ig) && !ignored(indexPaths.get(c) ?? c.path, ig));
    return changelog.length ? [{ ...f, changelog }] : [];
  });
}
