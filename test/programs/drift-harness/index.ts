// The drift harness's stack (test/drift/harness), on either SDK (config `sdk`: dynamic or native):
// every resource type, each with the properties a person can edit through the API declared, from
// the JSON spec in config `spec` (test/drift/harness/declared.ts). test/python/drift_harness.py
// declares the same in Python. Some properties are under ignoreChanges, and a few inputs are left
// undeclared on purpose: edits of either must never be reported.
import * as pulumi from "@pulumi/pulumi";
import type * as Dynamic from "pulumi-cloudplatform";

const config = new pulumi.Config();
const cloud: typeof Dynamic = config.get("sdk") === "native" ? require("pulumi-cloudplatform/native") : require("pulumi-cloudplatform");
const s = config.requireObject<any>("spec");

const project = new cloud.Project("app", s.project, { ignoreChanges: ["description"] });
new cloud.Project("spare", s.spare);
const env = new cloud.Environment("production", { projectId: project.id, name: s.env.name });
new cloud.Environment("staging", { projectId: project.id, name: s.spareEnv.name });

// runtimeVersion and previewsEnabled are left to the platform: edits of them are not drift.
const web = new cloud.Service("web", {
  environmentId: env.id, type: "WEB", timeout: "2m", suspended: false,
  name: s.web.name, image: s.web.image, imageCommand: s.web.imageCommand, startCommand: s.web.startCommand,
  buildCommand: s.web.buildCommand, healthCheckPath: s.web.healthCheckPath, port: s.web.port,
  envVars: [...s.web.envVars, { key: "TOKEN", value: config.requireSecret("token"), scope: "ALL", secret: true }],
  secretFiles: [{ path: s.web.filePath, content: config.requireSecret("fileContent") }],
});
const job = new cloud.Service("job", {
  environmentId: env.id, type: "CRON", timeout: "2m", cronSuspended: false,
  name: s.job.name, image: s.job.image, schedule: s.job.schedule, command: s.job.command,
}, { ignoreChanges: ["command"] });
new cloud.EnvVar("region", { serviceId: job.id, ...s.region, secret: false });
new cloud.EnvVar("apikey", { serviceId: job.id, key: s.apiKeyVar.key, value: config.requireSecret("apiKey"), scope: "ALL", secret: true });
new cloud.SecretFile("cert", { serviceId: job.id, path: s.certPath, content: config.requireSecret("cert") });

const zone = new cloud.DnsZone("zone", { name: s.zone });
const verified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "60s" });
// Left unpublished: the platform publishing it later is not drift.
new cloud.DnsZone("spare-zone", { name: `spare.${s.zone}` });
new cloud.DnsRecord("www", { zoneId: verified.zoneId, ...s.records.www });
new cloud.DnsRecord("txt", { zoneId: verified.zoneId, ...s.records.txt }, { ignoreChanges: ["ttl"] });
new cloud.DnsRecord("mx", { zoneId: verified.zoneId, ...s.records.mx });
new cloud.DnsRecordSet("set", { zoneId: verified.zoneId, records: s.set });

const mail = new cloud.MailDomain("mail", { name: s.mail }, { dependsOn: [verified] });
const mailRecords = new cloud.DnsRecordSet("mail-records", {
  zoneId: verified.zoneId,
  records: mail.records.apply((rs) => rs.map((r) => ({ name: `${r.fqdn}.`, type: r.type, content: r.value, ...(r.priority != null ? { priority: r.priority } : {}) }))),
});
new cloud.MailDomainVerification("mail", { domainId: mail.id, workspaceId: mail.workspaceId, timeout: "60s" }, { dependsOn: [mailRecords] });
new cloud.Suppression("bounced", { address: s.suppression });

new cloud.Bucket("assets", { name: s.bucket.name, corsRules: s.bucket.corsRules, policy: s.bucket.policy, forceDestroy: true }, { ignoreChanges: ["corsRules[1].maxAgeSeconds"] });

const site = new cloud.StaticSite("site", { path: "./site", environmentId: env.id, name: s.site.name, timeout: "2m" });
const docs = new cloud.CustomDomain("docs", { serviceId: site.serviceId, domain: s.docs });
const docsRecords = new cloud.DnsRecordSet("docs-records", {
  zoneId: verified.zoneId,
  records: docs.dnsTarget.apply((t) => t.records.map((r) => ({ name: `${r.fqdn}.`, type: r.type, content: r.content }))),
});
new cloud.CustomDomainVerification("docs", { domainId: docs.id, timeout: "60s" }, { dependsOn: [docsRecords] });

export const ids = {
  project: project.id, env: env.id, web: web.id, job: job.id, zone: zone.id, mail: mail.id, site: site.serviceId, docs: docs.id,
};
