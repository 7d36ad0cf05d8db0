// The base of every resource class. Args and outputs are typed by sdk/types.ts, generated from the
// provider's zod schemas, so the SDK and the provider cannot disagree on a property.
import * as pulumi from "@pulumi/pulumi";
import { IDENTITY_INPUT } from "../provider/client/idempotency";
import { readInPreview } from "./preview";
import { providerModule } from "./provider";
import { resourceMeta } from "./types";

/** Output properties as Pulumi Outputs, from a generated *State interface. */
export type OutputsOf<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

/**
 * Who this resource is, for its create's Idempotency-Key: project, stack, kind, name and the chain
 * of parents' types and names, which is what makes a URN unique. Stable across runs and crashes,
 * and known at once: the parent's URN is an Output, and depending on it would make each child of a
 * component depend on the component, so on itself.
 */
function identity(kind: string, name: string, parent: pulumi.Resource | undefined): string {
  let chain = "";
  // Type and name of each ancestor, read from the SDK's own fields (they are not public API);
  // without them the identity is a little coarser, never wrong for top-level resources.
  for (let r = parent as Ancestor | undefined; r && r.__pulumiType !== "pulumi:pulumi:Stack"; r = r.__parentResource) {
    chain = `${r.__pulumiType ?? "?"}::${r.__name ?? "?"}/${chain}`;
  }
  return `${pulumi.getProject()}/${pulumi.getStack()}/${chain}cloudplatform:${kind}::${name}`;
}
interface Ancestor {
  __pulumiType?: string;
  __name?: string;
  __parentResource?: Ancestor;
}

/**
 * Outputs that are the resource's id. Pulumi's dynamic provider host cannot preview an update, so
 * while previewing one every output that is not an input is unknown; the id is known then, and so
 * are these (others are read: preview.ts).
 */
const ID_OUTPUTS: Record<string, string[]> = { StaticSite: ["serviceId"] };

/** The base of every resource class; output names and secret outputs come from sdk/types.ts. */
export abstract class Resource extends pulumi.dynamic.Resource {
  protected constructor(kind: string, name: string, args: object, opts: pulumi.CustomResourceOptions = {}) {
    if (opts.import !== undefined) {
      // Pulumi's dynamic provider host cannot read an object it has no state for.
      throw new Error(
        `${kind} ${name}: the \`import\` resource option needs the native provider. Import ${kind} from ` +
          `"pulumi-cloudplatform/native" for this resource (or run \`pulumi import cloudplatform:index:${kind} ${name} <id>\`); ` +
          "see \"The native plugin\" in the package README.",
      );
    }
    const meta = resourceMeta[kind];
    const props: Record<string, unknown> = {};
    for (const key of meta.outputs) props[key] = undefined;
    Object.assign(props, args);
    for (const [list, idField] of Object.entries(meta.keyedLists ?? {})) props[list] = keyedMap(props[list], idField);
    props[IDENTITY_INPUT] = identity(kind, name, opts.parent);
    const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), ...meta.secretOutputs];
    // Unique names: a forced replacement (`--replace`) deletes the old object first, unless the program says otherwise.
    const defaults = meta.deleteBeforeReplace && opts.deleteBeforeReplace === undefined ? { deleteBeforeReplace: true } : {};
    super(
      providerModule(kind),
      name,
      props,
      { ...opts, ...defaults, ...(additionalSecretOutputs.length ? { additionalSecretOutputs } : {}) },
      "cloudplatform",
      kind,
    );
    for (const key of ID_OUTPUTS[kind] ?? []) (this as unknown as Record<string, pulumi.Output<string>>)[key] = this.id;
    // The outputs hold keyed lists as lists; while a create is previewed they are the inputs, maps.
    const outputs = this as unknown as Record<string, pulumi.Output<unknown>>;
    for (const [list, idField] of Object.entries(meta.keyedLists ?? {})) outputs[list] = outputs[list].apply((v) => listOf(v, idField));
    readInPreview(this, kind, args as Record<string, unknown>);
  }
}

/**
 * A keyed list (a Service's env vars by key) as a map by its key. Pulumi's dynamic provider host is
 * given no secrets, so the engine keeps secret as a whole any list that holds one, and a change to
 * a plain item of it could no longer be seen; a map keeps each secret value secret on its own. A
 * list whose keys are not all known strings yet (an Output), or that repeats one, stays a list.
 */
function keyedMap(v: unknown, idField: string): unknown {
  if (!Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const item of v) {
    if (!item || typeof item !== "object" || pulumi.Output.isInstance(item) || item instanceof Promise) return v;
    const { [idField]: id, ...rest } = item as Record<string, unknown>;
    if (typeof id !== "string" || Object.prototype.hasOwnProperty.call(out, id)) return v;
    out[id] = rest;
  }
  return out;
}

/** A keyed list given back as a list, whichever form it has. */
function listOf(v: unknown, idField: string): unknown {
  if (!v || typeof v !== "object" || Array.isArray(v)) return v;
  return Object.entries(v).map(([id, item]) => ({ [idField]: id, ...(item as object) }));
}
