// The few facts a refresh's read and cloudplatform-drift share, kept free of dependencies so the
// drift command reads them without loading the resource handlers.

/** Per resource kind, its list inputs whose items are known by one field (env vars by `key`). */
export const KEYED_LISTS: Record<string, Record<string, string>> = {
  Service: { envVars: "key", secretFiles: "path" },
};

/**
 * The hidden output a read that found a change carries: each change by path, list items by their
 * key. cloudplatform-drift reads it, since the dynamic provider host passes no per-property diff on.
 */
export const DRIFT_OUTPUT = "__drift";

/** One change a refresh found: its path (a keyed list's item by its key) and kind. */
export interface DriftChange {
  path: string[];
  kind: "add" | "delete" | "update";
}
