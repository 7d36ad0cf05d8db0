// The base of every resource class: args and outputs are typed from the provider's zod schemas, so
// the SDK and the provider cannot disagree on a property.
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { providerFor } from "./provider";

/** Resource arguments: each input may be a plain value, a promise or an Output. */
export type Args<T> = { [K in keyof T]: pulumi.Input<T[K]> };
/** Resource outputs: each output property as a Pulumi Output. */
export type Outs<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

export abstract class CloudPlatformResource extends pulumi.dynamic.Resource {
  protected constructor(
    kind: string,
    name: string,
    args: object,
    outputs: z.ZodObject<any>,
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
