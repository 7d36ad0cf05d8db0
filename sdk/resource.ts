// The base of every resource class: args and outputs are typed from the provider's zod schemas, so
// the SDK and the provider cannot disagree on a property.
import * as pulumi from "@pulumi/pulumi";
import { providerFor } from "./provider";
import { resourceMeta } from "./types";

/** Resource arguments: each input may be a plain value, a promise or an Output. */
export type Args<T> = { [K in keyof T]: pulumi.Input<T[K]> };
/** Resource outputs: each output property as a Pulumi Output. */
export type Outs<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

export abstract class CloudPlatformResource extends pulumi.dynamic.Resource {
  protected constructor(
    kind: string,
    name: string,
    args: object,
    outputs: { shape: Record<string, unknown> },
    opts: pulumi.CustomResourceOptions = {},
    secretOutputs: string[] = [],
  ) {
    const props: Record<string, unknown> = {};
    for (const key of Object.keys(outputs.shape)) props[key] = undefined;
    Object.assign(props, args);
    const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), ...secretOutputs];
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
