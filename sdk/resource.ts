// The base of every resource class. Args and outputs are typed by sdk/types.ts, generated from the
// provider's zod schemas, so the SDK and the provider cannot disagree on a property.
import * as pulumi from "@pulumi/pulumi";
import { providerFor } from "./provider";
import { resourceMeta } from "./types";

/** Output properties as Pulumi Outputs, from a generated *State interface. */
export type OutputsOf<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

/** The base of every resource class; output names and secret outputs come from sdk/types.ts. */
export abstract class Resource extends pulumi.dynamic.Resource {
  protected constructor(kind: string, name: string, args: object, opts: pulumi.CustomResourceOptions = {}) {
    const meta = resourceMeta[kind];
    const props: Record<string, unknown> = {};
    for (const key of meta.outputs) props[key] = undefined;
    Object.assign(props, args);
    const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), ...meta.secretOutputs];
    super(
      providerFor(kind),
      name,
      props,
      additionalSecretOutputs.length ? { ...opts, additionalSecretOutputs } : opts,
      "cloudplatform",
      kind,
    );
  }
}
