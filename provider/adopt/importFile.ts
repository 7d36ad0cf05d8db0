// The Pulumi bulk-import file (`pulumi import --file`): one entry per adopted object, parents
// first, each naming its parent. It holds ids and names only. Where a Service holds secrets, its
// import id ends with `?omit=envVars,secretFiles` (see Operations.read): the import leaves them
// out of the generated code, and `cloudplatform-adopt secrets` adds them back, read from config.
import type { Discovery, Kind } from "./discover";
import { parseImportId, withOmit } from "../importId";
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

export function buildImportFile(d: Discovery): ImportFile {
  const names = assignNames(d.items);
  const nameOf = new Map(d.items.map((item, i) => [item.key, names[i]]));
  return {
    nameTable: {},
    resources: d.items.map((item, i) => {
      const id = withOmit(item.importId, item.leaveOut ?? []);
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
    .filter((r) => r.type === tokenOf("Service"))
    .map((r) => {
      const { bare, omit } = parseImportId(r.id);
      return { name: r.name, serviceId: bare, inputs: SECRET_INPUTS.filter((p) => omit.includes(p)) };
    })
    .filter((s) => s.inputs.length > 0);
}

/** The EnvVars and SecretFiles of an import file whose value (or content) the import left out. */
export function valuesToComplete(file: ImportFile): { name: string; type: "EnvVar" | "SecretFile"; id: string }[] {
  return file.resources.flatMap((r) => {
    const type = r.type === tokenOf("EnvVar") ? "EnvVar" : r.type === tokenOf("SecretFile") ? "SecretFile" : undefined;
    if (!type) return [];
    const { bare, omit } = parseImportId(r.id);
    return omit.includes(type === "EnvVar" ? "value" : "content") ? [{ name: r.name, type, id: bare }] : [];
  });
}
