import type * as pulumi from "@pulumi/pulumi";
import type { SuppressionArgs, SuppressionState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface Suppression extends OutputsOf<SuppressionState> {}

/**
 * An address on the workspace's suppression list. `reason` is set by the platform and refused
 * here. A complaint suppression cannot be deleted: destroying it fails with an explanation.
 */
export class Suppression extends Resource {
  constructor(name: string, args: SuppressionArgs, opts?: pulumi.CustomResourceOptions) {
    super("Suppression", name, args, opts);
  }
}
