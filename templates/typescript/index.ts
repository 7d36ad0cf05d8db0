import * as cloud from "pulumi-cloudplatform";

// A project and its production environment. The provider reads cloudplatform:baseUrl and the
// secret cloudplatform:apiKey from this stack's config (or CLOUDPLATFORM_BASE_URL and CLOUDPLATFORM_API_KEY).
const project = new cloud.Project("project", { name: "${PROJECT}" });
// Named DEV, UAT or PROD (any case), an environment has that tier (`kind`).
const production = new cloud.Environment("prod", { projectId: project.id, name: "prod" });

export const projectId = project.id;
export const environmentId = production.id;
export const tier = production.kind; // "PROD"
