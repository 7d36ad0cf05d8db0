// The base of every resource class. Args and outputs are typed by sdk/types.ts, generated from the
// provider's zod schemas, so the SDK and the provider cannot disagree on a property.
import * as pulumi from "@pulumi/pulumi";
import { IDENTITY_INPUT } from "../provider/client/idempotency";
import { providerModule } from "./provider";
import { resourceMeta } from "./types";

/** Output properties as Pulumi Outputs, from a generated *State interface. */
export type OutputsOf<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

/**
 * Who this resource is, for its create's Idempotency-Key: stack, project, kind, name and the
 * parent's URN (names are unique only under a parent). Stable across runs and crashes.
 */
function identity(kind: string, name: string, parent: pulumi.Resource | undefined): pulumi.Input<string> {
  const base = `${pulumi.getProject()}/${pulumi.getStack()}/cloudplatform:${kind}/${name}`;
  return parent ? parent.urn.apply((urn) => `${base}@${urn}`) : base;
}

/** The base of every resource class; output names and secret outputs come from sdk/types.ts. */
export abstract class Resource extends pulumi.dynamic.Resource {
  protected constructor(kind: string, name: string, args: object, opts: pulumi.CustomResourceOptions = {}) {
    const meta = resourceMeta[kind];
    const props: Record<string, unknown> = {};
    for (const key of meta.outputs) props[key] = undefined;
    Object.assign(props, args);
    props[IDENTITY_INPUT] = identity(kind, name, opts.parent);
    const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), ...meta.secretOutputs];
    super(
      providerModule(kind),
      name,
      props,
      additionalSecretOutputs.length ? { ...opts, additionalSecretOutputs } : opts,
      "cloudplatform",
      kind,
    );
  }
}
