import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();

const project = new cloud.Project("shop", { name: config.get("projectName") ?? "shop-web", displayName: "Shop" });
const production = new cloud.Environment("production", { projectId: project.id, name: "production" });

// The database links its connection URL into the environment's other services as DATABASE_URL
// (read-only there), so the app below needs no copy of the password.
const db = new cloud.Service("db", {
  environmentId: production.id,
  name: "db",
  type: "POSTGRES",
  dbName: "shop",
  injectConnectionUrl: true,
});

// Env vars and the secret file travel with the create, so the first deploy already has them;
// `up` waits until that deploy is RUNNING.
const web = new cloud.Service("web", {
  environmentId: production.id,
  name: "web",
  type: "WEB",
  image: config.get("image") ?? "ghcr.io/acme/shop:1.4.2",
  port: 8080,
  healthCheckPath: "/healthz",
  envVars: [
    { key: "NODE_ENV", value: "production" },
    { key: "LOG_LEVEL", value: config.get("logLevel") ?? "info" },
    { key: "SESSION_SECRET", value: config.getSecret("sessionSecret") ?? pulumi.secret("change-me-in-stack-config"), secret: true },
  ],
  secretFiles: [{ path: "/etc/secrets/payments.json", content: config.getSecret("paymentsConfig") ?? pulumi.secret("{\"provider\":\"sandbox\"}") }],
  redeployOnChange: true,
}, { dependsOn: [db] });

const nightly = new cloud.Service("nightly-report", {
  environmentId: production.id,
  name: "nightly-report",
  type: "CRON",
  image: "ghcr.io/acme/shop-jobs:1.4.2",
  schedule: "0 2 * * *",
  command: "node jobs/nightly-report.js",
}, { dependsOn: [db] });

export const projectId = project.id;
export const url = web.url;
export const webId = web.id;
export const webStatus = web.latestDeployStatus;
export const region = web.region;
export const databaseId = db.id;
export const connection = db.connection;
export const cronJobId = nightly.id;
