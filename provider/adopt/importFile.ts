// The Pulumi bulk-import file (`pulumi import --file`): one entry per adopted object, parents
// first, each naming its parent. It holds ids and names only. Where a Service holds secrets the
// entry lists the inputs to import without them, so the code `pulumi import` generates carries no
// secret; `cloudplatform-adopt secrets` then adds them to the program, read from config.
import { resources } from "../resources";
import type { Discovery, Kind } from "./discover";
import { assignNames } from "./names";

export interface ImportEntry {
  type: string;
  name: string;
  id: string;
  parent?: string;
  /** The inputs to import; all of them when absent. */
  properties?: string[];
}

export interface ImportFile {
  nameTable: Record<string, string>;
  resources: ImportEntry[];
}

/** Inputs of a Service the secrets step fills in when the import left them out. */
export const SECRET_INPUTS = ["envVars", "secretFiles"] as const;

export function buildImportFile(d: Discovery): ImportFile {
  const names = assignNames(d.items);
  const nameOf = new Map(d.items.map((item, i) => [item.key, names[i]]));
  return {
    nameTable: {},
    resources: d.items.map((item, i) => {
      const entry: ImportEntry = { type: tokenOf(item.kind), name: names[i], id: item.importId };
      if (item.parent) entry.parent = nameOf.get(item.parent);
      if (item.leaveOut?.length) entry.properties = Object.keys(resources[item.kind].inputs.shape).filter((p) => !item.leaveOut!.includes(p)).sort();
      return entry;
    }),
  };
}

export const tokenOf = (kind: Kind | string) => `cloudplatform:index:${kind}`;

/** The Services of an import file whose secret inputs the import left out, with which ones. */
export function servicesToComplete(file: ImportFile): { name: string; serviceId: string; inputs: string[] }[] {
  return file.resources
    .filter((r) => r.type === tokenOf("Service") && r.properties)
    .map((r) => ({ name: r.name, serviceId: r.id, inputs: SECRET_INPUTS.filter((p) => !r.properties!.includes(p)) }))
    .filter((s) => s.inputs.length > 0);
}
