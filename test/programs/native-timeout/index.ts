// A service whose first deploy takes longer than the create's customTimeouts (and, with a new
// image, than the update's).
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const project = new cloud.Project("app", { name: "slow-app" });
const env = new cloud.Environment("production", { projectId: project.id, name: "production" });
const web = new cloud.Service("web", {
  environmentId: env.id, name: "web", type: "WEB", image: config.get("image") ?? "nginx:1.27",
}, { customTimeouts: { create: config.get("createTimeout") ?? "5s", update: config.get("updateTimeout") ?? "2m" } });

export const webId = web.id;
export const webDeployStatus = web.latestDeployStatus;
