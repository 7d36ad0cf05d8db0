import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const project = new cloud.Project("app", {
  name: config.require("name"),
  description: config.get("description"),
  region: config.get("region"),
});
const envs = (config.get("envs") ?? "production,staging").split(",").filter(Boolean);
const environments = envs.map((name) => new cloud.Environment(name, { projectId: project.id, name }));

export const projectId = project.id;
export const region = project.region;
export const environmentIds = environments.map((e) => e.id);
