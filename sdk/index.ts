// pulumi-cloudplatform: resource classes and functions for the cloud platform.
export { Project, type ProjectArgs } from "./project";
export { Environment, type EnvironmentArgs } from "./environment";
