import type * as pulumi from "@pulumi/pulumi";
import { type OutputsOf, Resource } from "./resource";
import type { ProjectArgs, ProjectState } from "./types";

export interface Project extends OutputsOf<ProjectState> {}

/** A project: the container for environments and, through them, services. */
export class Project extends Resource {
  constructor(name: string, args: ProjectArgs, opts?: pulumi.CustomResourceOptions) {
    super("Project", name, args, opts);
  }
}
