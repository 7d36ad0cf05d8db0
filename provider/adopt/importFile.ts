// The Pulumi bulk-import file (`pulumi import --file`): one entry per adopted object, parents
// first, each naming its parent. It holds ids and names only. Where a Service holds secrets, its
// import id ends with `?omit=envVars,secretFiles` (see Operations.read): the import leaves them
// out of the generated code, and `cloudplatform-adopt secrets` adds them back, read from config.
import type { Discovery, Kind } from "./discover";
import { assignNames } from "./names";

export interface ImportEntry {
  type: string;
  name: string;
  id: string;
  parent?: string;
}

export interface ImportFile {
  nameTable: Record<string, string>;
  resources: ImportEntry[];
}

/** Inputs of a Service the secrets step fills in when the import left them out. */
export const SECRET_INPUTS = ["envVars", "secretFiles"] as const;
const OMIT = "?omit=";

export function buildImportFile(d: Discovery): ImportFile {
  const names = assignNames(d.items);
  const nameOf = new Map(d.items.map((item, i) => [item.key, names[i]]));
  return {
    nameTable: {},
    resources: d.items.map((item, i) => {
      const id = item.leaveOut?.length ? `${item.importId}${OMIT}${item.leaveOut.join(",")}` : item.importId;
      const entry: ImportEntry = { type: tokenOf(item.kind), name: names[i], id };
      if (item.parent) entry.parent = nameOf.get(item.parent);
      return entry;
    }),
  };
}

export const tokenOf = (kind: Kind | string) => `cloudplatform:index:${kind}`;

/** The Services of an import file whose secret inputs the import left out, with which ones. */
export function servicesToComplete(file: ImportFile): { name: string; serviceId: string; inputs: string[] }[] {
  return file.resources
    .filter((r) => r.type === tokenOf("Service") && r.id.includes(OMIT))
    .map((r) => {
      const [serviceId, omit] = r.id.split(OMIT);
      return { name: r.name, serviceId, inputs: SECRET_INPUTS.filter((p) => omit.split(",").includes(p)) };
    })
    .filter((s) => s.inputs.length > 0);
}
