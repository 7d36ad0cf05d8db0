// The native SDK (served by the plugin) through a whole stack: a project with an environment, a
// web service with secret env vars and a file, and the mail flow in its parts.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const project = new cloud.Project("app", {
  name: config.require("name"),
  description: config.get("description"),
  region: config.get("region"),
});
const env = new cloud.Environment("production", { projectId: project.id, name: "production" });

const web = new cloud.Service("web", {
  environmentId: env.id,
  name: "web",
  type: "WEB",
  image: config.get("image") ?? "nginx:1.27",
  envVars: [
    { key: "MODE", value: config.get("mode") ?? "production" },
    { key: "API_TOKEN", value: config.requireSecret("token"), secret: true },
  ],
  secretFiles: [{ path: "/etc/secrets/app.json", content: config.requireSecret("fileContent") }],
  timeout: "2m",
});

const withMail = config.getBoolean("mail") ?? true;
let status: pulumi.Output<string> | undefined;
if (withMail) {
  const zoneName = config.get("zone") ?? "native.test";
  const zone = new cloud.DnsZone("zone", { name: zoneName });
  const zoneVerified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "30s" });
  const domain = new cloud.MailDomain("domain", { name: `news.${zoneName}` }, { dependsOn: [zoneVerified] });
  const records = new cloud.DnsRecordSet("records", {
    zoneId: zone.id,
    records: domain.records.apply((rs) => rs.map((r) => ({
      name: `${r.fqdn}.`, type: r.type, content: r.value, ...(r.priority !== null && r.priority !== undefined ? { priority: r.priority } : {}),
    }))),
  });
  status = new cloud.MailDomainVerification("domain", { domainId: domain.id, timeout: "30s" }, { dependsOn: [records] }).status;
}

export const projectId = project.id;
export const environmentId = env.id;
export const webId = web.id;
export const webEnvVars = web.envVars;
export const mailStatus = status;
export const regions = cloud.getRegionsOutput().regions.apply((rs) => rs.length);
