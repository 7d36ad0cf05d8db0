// pulumi-cloudplatform: resource classes and functions for the cloud platform.
export { Project } from "./project";
export { Environment } from "./environment";
export * from "./types";
