// A secret in every kind of secret input: the API key (stack config, set by the test), env var
// values (inline and standalone), a database password and secret file contents (inline and
// standalone). With `broken`, one more service whose image cannot be pulled fails its deploy
// while carrying the same secrets.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const token = config.requireSecret("token");
const fileContent = config.requireSecret("fileContent");

const project = new cloud.Project("app", { name: "secrets-test" });
const env = new cloud.Environment("production", { projectId: project.id, name: "production" });

const db = new cloud.Service("db", {
  environmentId: env.id, name: "db", type: "POSTGRES", dbName: "shop",
  dbPassword: config.requireSecret("dbPassword"), injectConnectionUrl: true, timeout: "2m",
});

const web = new cloud.Service("web", {
  environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27", port: 8080,
  envVars: [{ key: "MODE", value: "production" }, { key: "API_TOKEN", value: token, secret: true }],
  secretFiles: [{ path: "/etc/secrets/app.json", content: fileContent }],
  timeout: "2m",
}, { dependsOn: [db] });

new cloud.EnvVar("signing", { serviceId: web.id, key: "SIGNING_KEY", value: config.requireSecret("envValue") });
new cloud.SecretFile("creds", { serviceId: web.id, path: "/etc/secrets/creds.txt", content: config.requireSecret("standaloneFile") });

if (config.getBoolean("broken")) {
  new cloud.Service("broken", {
    environmentId: env.id, name: "broken", type: "WEB", image: "nginx:missing",
    envVars: [{ key: "API_TOKEN", value: token, secret: true }],
    secretFiles: [{ path: "/etc/secrets/app.json", content: fileContent }],
    timeout: "2m",
  });
}

export const webId = web.id;
export const connection = db.connection;
