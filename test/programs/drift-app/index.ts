// The drift tests' stack, on either SDK (config `sdk`: dynamic or native): a project whose
// description is under ignoreChanges, a service with a plain and a secret env var, a DNS record
// and a bucket with CORS rules. test/python/drift.py and test/drift-go make the same in Python and Go.
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cloud = config.get("sdk") === "native" ? require("pulumi-cloudplatform/native") : require("pulumi-cloudplatform");
const tag = config.require("tag");

const project = new cloud.Project("app", { name: `drift-${tag}`, description: "managed" }, { ignoreChanges: ["description"] });
const env = new cloud.Environment("production", { projectId: project.id, name: "production" });
const web = new cloud.Service("web", {
  environmentId: env.id,
  name: "web",
  type: "WEB",
  image: config.get("image") ?? "nginx:1.27",
  envVars: [
    { key: "MODE", value: "production" },
    { key: "TOKEN", value: config.requireSecret("token"), secret: true },
  ],
  timeout: "2m",
});
// A new `zone` name replaces the zone: the remediation test's plan that --remediate refuses.
const zone = new cloud.DnsZone("zone", { name: config.get("zone") ?? `drift-${tag}.test` });
const www = new cloud.DnsRecord("www", { zoneId: zone.id, name: "www", type: "CNAME", content: "app.example.com" });
const assets = new cloud.Bucket("assets", {
  name: `drift-${tag}-assets`,
  corsRules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://shop.example.com"] }],
});

export const projectId = project.id;
export const serviceId = web.id;
export const zoneId = zone.id;
export const recordId = www.id;
export const bucket = assets.name;
