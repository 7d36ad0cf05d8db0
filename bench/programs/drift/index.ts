// The drift bench's stack: 15 resources on either SDK (config `sdk`): a project, an environment, a
// service, a zone with ten records, and a bucket.
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cloud = config.get("sdk") === "native" ? require("pulumi-cloudplatform/native") : require("pulumi-cloudplatform");
const tag = config.require("tag");
const project = new cloud.Project("app", { name: `bench-${tag}` });
const env = new cloud.Environment("production", { projectId: project.id, name: "production" });
const web = new cloud.Service("web", { environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27", envVars: [{ key: "MODE", value: "production" }] });
const zone = new cloud.DnsZone("zone", { name: `bench-${tag}.test` });
for (let i = 0; i < 10; i++) new cloud.DnsRecord(`r${i}`, { zoneId: zone.id, name: `host${i}`, type: "A", content: `203.0.113.${i + 1}` });
new cloud.Bucket("assets", { name: `bench-${tag}-assets` });
export const serviceId = web.id;
