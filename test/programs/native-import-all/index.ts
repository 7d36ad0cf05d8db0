// One resource of every type adopted with the `import` option, each declared as it is on the
// platform, so the import itself changes nothing; the import ids come from the stack's config.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const adopt = (kind: string): pulumi.CustomResourceOptions => ({ import: config.require(`import${kind}`) });
const zone = config.require("zone");

new cloud.Project("project", { name: config.require("projectName"), description: config.require("description") }, adopt("Project"));
new cloud.Environment("env", { projectId: config.require("projectId"), name: "production" }, adopt("Environment"));
new cloud.Service("web", {
  environmentId: config.require("environmentId"),
  name: "web",
  type: "WEB",
  image: "nginx:1.27",
  envVars: [
    { key: "MODE", value: config.require("mode") },
    { key: "TOKEN", value: config.requireSecret("token"), secret: true },
  ],
  secretFiles: [{ path: "/etc/app/secret.json", content: config.requireSecret("fileContent") }],
}, adopt("Service"));
new cloud.EnvVar("lone", { serviceId: config.require("otherServiceId"), key: "LONE", value: config.requireSecret("loneValue") }, adopt("EnvVar"));
new cloud.SecretFile("lone-file", { serviceId: config.require("otherServiceId"), path: "/etc/lone.txt", content: config.requireSecret("loneFile") }, adopt("SecretFile"));
new cloud.DnsZone("zone", { name: zone }, adopt("DnsZone"));
new cloud.DnsZoneVerification("zone", { zoneId: config.require("zoneId") }, adopt("DnsZoneVerification"));
new cloud.DnsRecord("www", { zoneId: config.require("zoneId"), name: "www", type: "CNAME", content: "app.example.com" }, adopt("DnsRecord"));
new cloud.DnsRecordSet("apex", {
  zoneId: config.require("zoneId"),
  records: [{ name: "@", type: "A", content: "203.0.113.10" }, { name: "@", type: "TXT", content: "set-member" }],
}, adopt("DnsRecordSet"));
new cloud.MailDomain("mail", { name: `mail.${zone}` }, adopt("MailDomain"));
new cloud.MailDomainVerification("mail", { domainId: config.require("mailDomainId") }, adopt("MailDomainVerification"));
new cloud.Suppression("bounced", { address: config.require("address") }, adopt("Suppression"));
new cloud.Bucket("assets", {
  name: config.require("bucket"),
  visibility: "PUBLIC_READ",
  corsRules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://www.example.com"] }],
}, adopt("Bucket"));
new cloud.StaticSite("docs", { path: config.require("sitePath"), environmentId: config.require("environmentId"), name: "docs" }, adopt("StaticSite"));
new cloud.CustomDomain("shop", { serviceId: config.require("serviceId"), domain: `shop.${zone}` }, adopt("CustomDomain"));
new cloud.CustomDomainVerification("shop", { domainId: config.require("customDomainId") }, adopt("CustomDomainVerification"));
