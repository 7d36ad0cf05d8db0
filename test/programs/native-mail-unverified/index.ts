// A VerifiedMailDomain of the native SDK (built by the plugin's Construct) in a zone that nobody
// delegated: its records are published in the zone, but public DNS never shows them.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const zoneName = config.require("zone");
const zone = new cloud.DnsZone("zone", { name: zoneName });
const mail = new cloud.VerifiedMailDomain("news", { name: `news.${zoneName}`, zoneId: zone.id, timeout: config.get("timeout") ?? "4s" });

export const status = mail.status;
