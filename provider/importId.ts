// The import id suffix `?omit=<input>,...` (see Operations.read): cloudplatform-adopt appends it
// to a Service's id so the import leaves those inputs out of the generated code, and the provider
// reads it back. It is split at the last marker. The suffix is always appended last and names
// inputs (identifiers, never holding '?' or '='), while the id before it is the platform's and may
// hold anything: a Suppression's id is `<workspaceId>/<address>`, and an address such as
// `a?omit=b@example.com` is valid mail. Splitting at the first marker would cut such an id in two.
export const OMIT_MARKER = "?omit=";

/** The id with the inputs to leave out; an id that holds the marker itself always gets a suffix, so it reads back whole. */
export function withOmit(id: string, omit: readonly string[]): string {
  return omit.length || id.includes(OMIT_MARKER) ? `${id}${OMIT_MARKER}${omit.join(",")}` : id;
}

/** The platform's id and the inputs the import leaves out. */
export function parseImportId(id: string): { bare: string; omit: string[] } {
  const at = id.lastIndexOf(OMIT_MARKER);
  if (at < 0) return { bare: id, omit: [] };
  return { bare: id.slice(0, at), omit: id.slice(at + OMIT_MARKER.length).split(",").filter(Boolean) };
}
