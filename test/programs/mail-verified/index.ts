// A delegated zone, its verification, and VerifiedMailDomains for a subdomain and (optionally) the apex.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const zoneName = config.require("zone");
const timeout = config.get("timeout") ?? "60s";

const zone = new cloud.DnsZone("zone", { name: zoneName });
const verified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout });

const sub = new cloud.VerifiedMailDomain("sub", {
  name: `${config.get("label") ?? "mail"}.${zoneName}`,
  zoneId: verified.zoneId,
  region: config.get("region"),
  timeout,
}, { dependsOn: [verified] });

const apex = config.getBoolean("apex")
  ? new cloud.VerifiedMailDomain("apex", { name: zoneName, zoneId: verified.zoneId, timeout }, { dependsOn: [verified] })
  : undefined;

export const zoneId = zone.id;
export const published = verified.published;
export const subId = sub.domainId;
export const subStatus = sub.status;
export const subRecords = sub.records;
export const apexId = apex?.domainId;
export const apexStatus = apex?.status;
export const apexRecords = apex?.records;
