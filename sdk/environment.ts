import type * as pulumi from "@pulumi/pulumi";
import { type OutputsOf, Resource } from "./resource";
import type { EnvironmentArgs, EnvironmentState } from "./types";

export interface Environment extends OutputsOf<EnvironmentState> {}

/**
 * An environment of a project. Any change replaces it; the old one is deleted first, because
 * names are unique within a project.
 */
export class Environment extends Resource {
  constructor(name: string, args: EnvironmentArgs, opts?: pulumi.CustomResourceOptions) {
    super("Environment", name, args, opts);
  }
}
