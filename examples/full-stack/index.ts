// A whole app on the platform: a web service with its Postgres database, env vars and a secret file,
// a bucket the browser uploads to from the app's origin (CORS), the app served at www.<domain>, and
// mail sent from mail.<domain>. The domain's zone is hosted by the platform and proven once, then
// both the custom domain and the mail domain publish their records into it and wait until verified.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const domain = config.get("domain") ?? "example-full.test";
const timeout = config.get("timeout") ?? "10m";
const origin = `https://www.${domain}`;

const project = new cloud.Project("app", { name: config.get("projectName") ?? "full-stack", displayName: "Full stack" });
const prod = new cloud.Environment("prod", { projectId: project.id, name: "prod" });

// The database links its URL into the environment's other services as DATABASE_URL.
const db = new cloud.Service("db", { environmentId: prod.id, name: "db", type: "POSTGRES", dbName: "app", injectConnectionUrl: true });

// Uploads go straight from the browser to the bucket, from the app's own origin only.
const uploads = new cloud.Bucket("uploads", {
  visibility: "PRIVATE",
  corsRules: [{ allowedMethods: ["GET", "PUT"], allowedOrigins: [origin], allowedHeaders: ["content-type"], maxAgeSeconds: 3600 }],
  forceDestroy: true,
});

// The zone is proven once; the custom domain and the mail domain below publish into it.
const zone = new cloud.DnsZone("zone", { name: domain });
const zoneVerified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout });

const mail = new cloud.VerifiedMailDomain("mail", { name: `mail.${domain}`, zoneId: zoneVerified.zoneId, timeout }, { dependsOn: [zoneVerified] });

const web = new cloud.Service("web", {
  environmentId: prod.id,
  name: "web",
  type: "WEB",
  image: config.get("image") ?? "ghcr.io/acme/app:2.0.0",
  port: 8080,
  healthCheckPath: "/healthz",
  envVars: [
    { key: "APP_ORIGIN", value: origin },
    { key: "UPLOADS_BUCKET", value: uploads.name },
    { key: "UPLOADS_ENDPOINT", value: uploads.endpoint.apply((e) => e ?? "") },
    { key: "MAIL_FROM", value: pulumi.interpolate`hello@${mail.mailDomain.name}` },
    { key: "SESSION_SECRET", value: config.getSecret("sessionSecret") ?? pulumi.secret("change-me-in-stack-config"), secret: true },
  ],
  secretFiles: [{ path: "/etc/secrets/mail-key", content: config.getSecret("mailKey") ?? pulumi.secret("mail_live_replace-me") }],
}, { dependsOn: [db] });

const www = new cloud.VerifiedCustomDomain("www", { serviceId: web.id, domain: `www.${domain}`, zoneId: zoneVerified.zoneId, timeout }, { dependsOn: [zoneVerified] });

export const url = web.url;
export const webStatus = web.latestDeployStatus;
export const customDomain = www.status.apply((status) => `${origin} (${status})`);
export const mailStatus = mail.status;
export const uploadsBucket = uploads.name;
export const connection = db.connection;
export const uploadsEndpoint = uploads.endpoint;
