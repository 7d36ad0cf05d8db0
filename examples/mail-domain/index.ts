// A zone for a domain whose nameservers point at the platform, proof of its ownership, and a
// sending domain in it: one VerifiedMailDomain adds the domain, publishes its DKIM, SPF, MX and
// DMARC records into the zone and waits until the platform has verified them.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const domain = config.get("domain") ?? "example-shop.test";

const zone = new cloud.DnsZone("zone", { name: domain });
const zoneVerified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "5m" });

const mail = new cloud.VerifiedMailDomain("mail", {
  name: `mail.${domain}`,
  zoneId: zoneVerified.zoneId,
  region: config.get("region"),
  timeout: config.get("timeout") ?? "10m",
}, { dependsOn: [zoneVerified] });

export const zoneId = zone.id;
export const zonePublishedBy = zoneVerified.verificationMethod;
export const mailDomainId = mail.domainId;
export const mailStatus = mail.status;
export const records = mail.records.apply((rs) => rs.map((r) => `${r.type} ${r.fqdn} ${r.priority ?? ""} ${r.value.length > 60 ? `${r.value.slice(0, 60)}...` : r.value}`.replace(/  +/g, " ")));
