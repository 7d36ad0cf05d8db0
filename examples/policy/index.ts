// A program that passes every CloudPlatformGuard policy: a production environment with a web
// service on a paid tier, a health check, and its credential marked secret.
import * as pulumi from "@pulumi/pulumi";
import * as cp from "pulumi-cloudplatform";

const config = new pulumi.Config();

const project = new cp.Project("shop", { name: "policy-shop" });
const production = new cp.Environment("production", { projectId: project.id, name: "production" });

export const web = new cp.Service("web", {
  environmentId: production.id,
  name: "web",
  type: "WEB",
  tier: "STARTER",
  image: "nginx:1.27",
  healthCheckPath: "/healthz",
  envVars: [{ key: "LOG_LEVEL", value: "info" }],
});

new cp.EnvVar("payments-key", { serviceId: web.id, key: "PAYMENTS_API_KEY", value: config.getSecret("paymentsKey") ?? "sk_test_local", secret: true });

export const url = web.url;
