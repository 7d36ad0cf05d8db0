// Every resource the provider serves, by name.
import type { ResourceDefinition } from "./framework";
import { Environment } from "./environment";
import { Project } from "./project";

export const resources: Record<string, ResourceDefinition> = {
  Project,
  Environment,
};
