import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();

const project = new cloud.Project("site", { name: config.get("projectName") ?? "marketing-site", displayName: "Marketing site" });
const production = new cloud.Environment("production", { projectId: project.id, name: "production" });

// The folder is hashed at preview: `pulumi preview` shows an update exactly when a file changed,
// and `pulumi up` uploads it and deploys it in place, on the same URL, waiting until it is live.
const site = new cloud.StaticSite("site", {
  path: config.get("siteDir") ?? "./site",
  environmentId: production.id,
  name: "marketing",
  spaFallback: true,
});

// A custom domain for the site and a bucket for its assets go here, next to the site they serve.

export const url = site.url;
export const siteId = site.serviceId;
export const deployId = site.deployId;
export const contentHash = site.contentHash;
