// Stable finding ids, and --baseline: what is new since the previous report. An id comes from the
// stack's name, the resource's URN and the property's path (an unmanaged object's from its key),
// never from a value: the same drift has the same id every night, whatever it changed to, and a
// harness can score findings against the edits it made by the same three coordinates.
import { createHash } from "node:crypto";
import type { Finding, Mark, Report, StackReport, Unmanaged, UnmanagedObject } from "./types";

const hash = (...parts: string[]) => createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 16);

/** A finding's id: its stack and resource. */
export const findingId = (stack: string, urn: string) => hash("finding", stack, urn);
/** A change's id: its stack, resource and property path. */
export const changeId = (stack: string, urn: string, path: string[]) => hash("change", stack, urn, ...path);
/** An unmanaged object's id: the workspace and its key. */
export const objectId = (workspaceId: string, key: string) => hash("unmanaged", workspaceId, key);

/** Gives every finding, change and unmanaged object of the report its id (in place). */
export function assignIds(r: Report): Report {
  for (const s of r.stacks) {
    for (const f of s.findings) {
      f.findingId = findingId(s.name, f.urn);
      for (const c of f.changelog ?? []) c.findingId = changeId(s.name, f.urn, c.path);
    }
  }
  for (const o of r.unmanaged?.objects ?? []) o.findingId = objectId(r.unmanaged!.workspaceId, o.key);
  return r;
}


/**
 * Marks each finding of `r` new or persisting against `previous`, and lists under each stack the
 * previous findings (or changes) it no longer has: resolved. A stack that could not be checked
 * resolves nothing; a stack not in `r` is not looked at.
 */
export function markAgainst(r: Report, previous: Report): Report {
  assignIds(r);
  assignIds(previous);
  const before = new Map<string, Finding>();
  for (const s of previous.stacks) for (const f of s.findings) before.set(f.findingId!, f);
  let fresh = 0;
  let persisting = 0;
  let resolved = 0;
  for (const s of r.stacks) {
    const seen = new Set<string>();
    for (const f of s.findings) {
      seen.add(f.findingId!);
      const old = before.get(f.findingId!);
      const oldChanges = new Set((old?.changelog ?? []).map((c) => c.findingId!));
      for (const c of f.changelog ?? []) c.baseline = oldChanges.has(c.findingId!) ? "persisting" : "new";
      // New when the resource was not drifted before, drifts otherwise now, or has a new change.
      f.baseline = !old || old.type !== f.type || (f.changelog ?? []).some((c) => c.baseline === "new") ? "new" : "persisting";
      if (f.baseline === "new") fresh++;
      else persisting++;
      if (old?.changelog?.length && f.type === "changed") {
        const now = new Set((f.changelog ?? []).map((c) => c.findingId!));
        const gone = old.changelog.filter((c) => !now.has(c.findingId!));
        if (gone.length) addResolved(s, { ...old, changelog: gone.map((c) => ({ ...c, baseline: "resolved" as Mark })) });
      }
    }
    // A stack that could not be checked (wholly or in part) cannot say what is gone.
    if (s.status === "failed") continue;
    const prev = previous.stacks.find((p) => p.name === s.name);
    for (const f of prev?.findings ?? []) {
      if (seen.has(f.findingId!) || f.type === "unreadable") continue;
      addResolved(s, { ...f, changelog: f.changelog?.map((c) => ({ ...c, baseline: "resolved" as Mark })) });
    }
    resolved += s.resolved?.length ?? 0;
  }
  if (r.unmanaged) resolved += markUnmanaged(r.unmanaged, previous.unmanaged);
  for (const o of r.unmanaged?.objects ?? []) {
    if (o.baseline === "new") fresh++;
    else persisting++;
  }
  r.baseline = { generatedAt: previous.generatedAt, new: fresh, persisting, resolved };
  return r;
}

function addResolved(s: StackReport, f: Finding): void {
  (s.resolved ??= []).push({ ...f, baseline: "resolved" });
}

function markUnmanaged(now: Unmanaged, before: Unmanaged | undefined): number {
  const old = new Map((before?.objects ?? []).map((o) => [o.findingId!, o]));
  const ids = new Set<string>();
  for (const o of now.objects) {
    o.baseline = old.has(o.findingId!) ? "persisting" : "new";
    ids.add(o.findingId!);
  }
  const gone: UnmanagedObject[] = [...old.values()].filter((o) => !ids.has(o.findingId!)).map((o) => ({ ...o, baseline: "resolved" }));
  if (gone.length && !now.error) now.resolved = gone;
  return now.error ? 0 : gone.length;
}

/** True when something in `r` is new since its baseline (every finding is, without one), or a stack newly fails. */
export function hasNew(r: Report, previous?: Report): boolean {
  const failedBefore = new Set((previous?.stacks ?? []).filter((s) => s.status === "failed").map((s) => s.name));
  if (r.stacks.some((s) => s.status === "failed" && !failedBefore.has(s.name))) return true;
  if (r.unmanaged?.objects.some((o) => o.baseline !== "persisting")) return true;
  return r.stacks.some((s) => s.findings.some((f) => f.type !== "unreadable" && f.baseline !== "persisting"));
}
