import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const project = new cloud.Project("app", { name: "svc-test" });
const env = new cloud.Environment("production", { projectId: project.id, name: "production" });

const withExtras = config.getBoolean("extras") ?? true;
const db = withExtras
  ? new cloud.Service("db", {
      environmentId: env.id, name: "db", type: "POSTGRES", dbName: "shop",
      dbPassword: config.requireSecret("dbPassword"), injectConnectionUrl: true, timeout: "2m",
    })
  : undefined;

const web = new cloud.Service("web", {
  environmentId: env.id,
  name: "web",
  type: (config.get("type") ?? "WEB") as "WEB",
  image: config.get("image") ?? "nginx:1.27",
  port: 8080,
  envVars: [
    { key: "MODE", value: config.get("mode") ?? "production" },
    { key: "API_TOKEN", value: config.requireSecret("token"), secret: true },
  ],
  secretFiles: [{ path: "/etc/secrets/app.json", content: config.requireSecret("fileContent") }],
  suspended: config.getBoolean("suspended"),
  timeout: "2m",
}, { dependsOn: db ? [db] : [] });

const flag = new cloud.EnvVar("flag", { serviceId: web.id, key: config.get("flagKey") ?? "FEATURE_FLAG", value: "on" });

const job = withExtras
  ? new cloud.Service("job", {
      environmentId: env.id, name: "job", type: "CRON", image: "alpine:3",
      schedule: config.get("schedule") ?? "*/5 * * * *", command: "node report.js", timeout: "2m",
    })
  : undefined;
const creds = job ? new cloud.SecretFile("creds", { serviceId: job.id, path: "creds.txt", content: config.requireSecret("fileContent") }) : undefined;

export const webId = web.id;
export const webUrl = web.url;
export const webStatus = web.latestDeployStatus;
export const pendingRedeploy = web.pendingRedeploy;
export const flagKey = flag.key;
export const dbId = db?.id;
export const connection = db?.connection;
export const jobId = job?.id;
export const credsPath = creds?.path;
