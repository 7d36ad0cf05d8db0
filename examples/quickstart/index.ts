import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();

const project = new cloud.Project("shop", {
  name: config.get("projectName") ?? "shop",
  displayName: "Shop",
  description: config.get("description") ?? "Storefront and its back office",
});

const production = new cloud.Environment("production", { projectId: project.id, name: "production" });
const staging = new cloud.Environment("staging", { projectId: project.id, name: "staging" });

export const projectId = project.id;
export const region = project.region;
export const environments = { production: production.id, staging: staging.id };
