// How much a resource weighs in a stack's state: shared by the lean-state tests and `make bench`.

/** One resource of `pulumi stack export`, as far as these measures need it. */
export interface StateEntry {
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, any>;
  stackTrace?: unknown;
}

// The dynamic provider's own inputs, which are not the resource's properties.
const HIDDEN = ["__provider", "__identity"];
const own = (o: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => !HIDDEN.includes(k)));

/**
 * Bytes a resource takes in state beyond its own inputs and outputs (URN, ids, the serialized
 * provider...); without the engine's record of the program's stack trace unless asked.
 */
export function stateOverhead(r: StateEntry, withStackTrace = false): number {
  const { stackTrace, ...rest } = r;
  const all = Buffer.byteLength(JSON.stringify(withStackTrace ? r : rest));
  return all - Buffer.byteLength(JSON.stringify(own(r.inputs))) - Buffer.byteLength(JSON.stringify(own(r.outputs)));
}

/** The serialized dynamic provider stored with a resource (once in inputs, once in outputs). */
export function serializedProvider(r: StateEntry): string {
  return String(r.inputs?.__provider ?? r.outputs?.__provider ?? "");
}
