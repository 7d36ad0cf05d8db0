import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

// The test runs a copy of this folder, whose ./site it edits between runs.
const config = new pulumi.Config();
const project = new cloud.Project("sites", { name: "sites-test" });
const env = new cloud.Environment("production", { projectId: project.id, name: "production" });

const site = new cloud.StaticSite("docs", {
  path: config.get("siteDir") ?? "./site",
  environmentId: env.id,
  name: "docs",
  timeout: "2m",
});

export const url = site.url;
export const serviceId = site.serviceId;
export const deployId = site.deployId;
export const contentHash = site.contentHash;
