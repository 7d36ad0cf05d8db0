import type * as pulumi from "@pulumi/pulumi";
import { Project as definition, type ProjectInputs, type ProjectOutputs } from "../provider/resources/project";
import { type Args, CloudPlatformResource, type Outs } from "./resource";

export type ProjectArgs = Args<ProjectInputs>;
export interface Project extends Outs<ProjectOutputs> {}

/** A project: the container for environments and, through them, services. */
export class Project extends CloudPlatformResource {
  constructor(name: string, args: ProjectArgs, opts?: pulumi.CustomResourceOptions) {
    super("Project", name, args, definition.outputs, opts, definition.secretOutputs);
  }
}
