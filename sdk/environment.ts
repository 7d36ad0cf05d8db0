import type * as pulumi from "@pulumi/pulumi";
import { Environment as definition, type EnvironmentInputs, type EnvironmentOutputs } from "../provider/resources/environment";
import { type Args, CloudPlatformResource, type Outs } from "./resource";

export type EnvironmentArgs = Args<EnvironmentInputs>;
export interface Environment extends Outs<EnvironmentOutputs> {}

/**
 * An environment of a project. Any change replaces it; the old one is deleted first, because
 * names are unique within a project.
 */
export class Environment extends CloudPlatformResource {
  constructor(name: string, args: EnvironmentArgs, opts?: pulumi.CustomResourceOptions) {
    super("Environment", name, args, definition.outputs, opts, definition.secretOutputs);
  }
}
