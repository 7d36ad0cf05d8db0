// A handler's DiffResult as the engine's DiffResponse, with the per-property detail.
import { DiffResponse, PropertyDiff } from "@pulumi/pulumi/proto/provider_pb";
import type { DiffResult, PropertyChange } from "../resources/framework";

const KINDS: Record<string, PropertyDiff.Kind> = {
  add: PropertyDiff.Kind.ADD,
  delete: PropertyDiff.Kind.DELETE,
  update: PropertyDiff.Kind.UPDATE,
  "add-replace": PropertyDiff.Kind.ADD_REPLACE,
  "delete-replace": PropertyDiff.Kind.DELETE_REPLACE,
  "update-replace": PropertyDiff.Kind.UPDATE_REPLACE,
};

export function propertyDiffKind(c: PropertyChange): PropertyDiff.Kind {
  return KINDS[c.replace ? `${c.kind}-replace` : c.kind];
}

/** The top-level property a detail path belongs to: `envVars[2].value` -> `envVars`. */
export const topLevel = (path: string) => path.split(/[.[]/, 1)[0];

export function toDiffResponse(d: DiffResult): DiffResponse {
  const res = new DiffResponse();
  const replaces = d.replaces ?? [];
  res.setChanges(d.changes === undefined ? DiffResponse.DiffChanges.DIFF_UNKNOWN : d.changes ? DiffResponse.DiffChanges.DIFF_SOME : DiffResponse.DiffChanges.DIFF_NONE);
  res.setReplacesList(replaces);
  res.setStablesList(d.stables ?? []);
  res.setDeletebeforereplace(!!d.deleteBeforeReplace && replaces.length > 0);
  if (d.detailedDiff) {
    const paths = Object.entries(d.detailedDiff);
    res.setDiffsList([...new Set([...paths.map(([p]) => topLevel(p)), ...replaces])]);
    // The detail must account for every change the engine is told of; a change without a path
    // (a handler that only says "changes") is left to the engine's own comparison.
    if (paths.length > 0 || !d.changes) {
      res.setHasdetaileddiff(true);
      const map = res.getDetaileddiffMap();
      for (const [path, change] of paths) {
        const pd = new PropertyDiff();
        pd.setKind(propertyDiffKind(change));
        pd.setInputdiff(true);
        map.set(path, pd);
      }
    }
  } else {
    res.setDiffsList(replaces);
  }
  return res;
}
