// A program for CloudPlatformGuard through the real CLI. `mode`: clean (no violation), advisory
// (advisory ones only) or mandatory (mandatory ones too). `sdk`: dynamic or native.
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "pulumi-cloudplatform";
import * as native from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const mode = config.require("mode");
const cp = (config.get("sdk") === "native" ? native : dynamic) as typeof dynamic;

const project = new cp.Project("shop", { name: "guarded-shop" });
const env = new cp.Environment("production", { projectId: project.id, name: "production" });
const web = new cp.Service("web", {
  environmentId: env.id,
  name: "web",
  type: "WEB",
  tier: mode === "mandatory" ? "FREE" : "STARTER",
  image: "nginx:1.27",
  // Advisory: a WEB service with no health check.
  ...(mode === "clean" ? { healthCheckPath: "/healthz" } : {}),
  envVars: [{ key: "SESSION_SECRET", value: "s3cret-value", secret: mode !== "mandatory" }],
});
new cp.Bucket("uploads", { visibility: mode === "mandatory" ? "PUBLIC_READ" : "PRIVATE" });
export const url = web.url;
