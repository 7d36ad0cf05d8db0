// A WEB service with previews, a delegated zone, and VerifiedCustomDomains for www and the apex.
// With `conflicts`, two more domains that cannot verify: one whose name a record of the zone holds,
// and one (CustomDomain + CustomDomainVerification) at a DNS host elsewhere.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const zoneName = config.require("zone");
const timeout = config.get("timeout") ?? "60s";

const project = new cloud.Project("app", { name: "domains-test" });
const env = new cloud.Environment("production", { projectId: project.id, name: "production" });
const web = new cloud.Service("web", {
  environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27", port: 8080,
  previewsEnabled: config.getBoolean("previews") ?? true, timeout: "2m",
});

const zone = new cloud.DnsZone("zone", { name: zoneName });
const verified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout });

const www = new cloud.VerifiedCustomDomain("www", { serviceId: web.id, domain: `www.${zoneName}`, zoneId: verified.zoneId, timeout }, { dependsOn: [verified] });
const apex = new cloud.VerifiedCustomDomain("apex", { serviceId: web.id, domain: zoneName, zoneId: verified.zoneId, timeout }, { dependsOn: [verified] });

if (config.getBoolean("conflicts")) {
  const short = config.get("conflictTimeout") ?? "5s";
  new cloud.VerifiedCustomDomain("shop", { serviceId: web.id, domain: `shop.${zoneName}`, zoneId: verified.zoneId, timeout: short }, { dependsOn: [verified] });
  const ext = new cloud.CustomDomain("ext", { serviceId: web.id, domain: config.require("external") });
  new cloud.CustomDomainVerification("ext", { domainId: ext.id, timeout: short });
}

export const serviceId = web.id;
export const previewsEnabled = web.previewsEnabled;
export const zoneId = zone.id;
export const wwwStatus = www.status;
export const wwwTarget = www.dnsTarget;
export const apexStatus = apex.status;
export const apexTarget = apex.dnsTarget;
// Read once both are ACTIVE, so the list is complete.
export const domains = pulumi
  .all([web.id, www.status, apex.status])
  .apply(([serviceId]) => cloud.getCustomDomains({ serviceId }))
  .apply((r) => r.domains.map((d) => `${d.domain} ${d.status}`).sort());
