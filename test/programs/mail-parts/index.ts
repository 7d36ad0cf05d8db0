// The flow spelt out: zone, MailDomain, its records published (or not, or with a wrong SPF value)
// by full name, and a MailDomainVerification with a short timeout.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const zoneName = config.require("zone");
const spf = config.get("spf");

const zone = new cloud.DnsZone("zone", { name: zoneName });
const zoneVerified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "30s" });
const domain = new cloud.MailDomain("domain", { name: `news.${zoneName}` }, { dependsOn: [zoneVerified] });

const published = config.getBoolean("publish")
  ? [new cloud.DnsRecordSet("records", {
      zoneId: zone.id,
      records: domain.records.apply((rs) => rs.map((r) => {
        const rec: { name: string; type: string; content: string; priority?: number } = {
          name: `${r.fqdn}.`, type: r.type, content: r.name === "SPF" && spf ? spf : r.value,
        };
        if (r.priority !== null) rec.priority = r.priority;
        return rec;
      })),
    })]
  : [];

const verification = new cloud.MailDomainVerification("domain", {
  domainId: domain.id,
  timeout: config.get("timeout") ?? "8s",
}, { dependsOn: published });

export const domainId = domain.id;
export const status = verification.status;
