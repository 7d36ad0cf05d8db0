// The engine-level benches' program: `projects` (N Projects), `noop` (N resources of a dynamic
// provider whose create returns at once: the baseline), `lean` (a few of each, for state size) and
// `mail` (a mail domain published in a delegated zone and verified).
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const mode = config.require("mode");
const n = config.getNumber("count") ?? 1;
const tag = config.get("tag") ?? "b";

const noop: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    return { id: inputs.name, outs: inputs };
  },
};
class Noop extends pulumi.dynamic.Resource {
  constructor(name: string, args: { name: string }) {
    super(noop, name, args);
  }
}

if (mode === "projects" || mode === "lean") {
  for (let i = 0; i < n; i++) new cloud.Project(`p${i}`, { name: `${tag}-${i}` });
}
if (mode === "noop" || mode === "lean") {
  for (let i = 0; i < n; i++) new Noop(`n${i}`, { name: `${tag}-${i}` });
}

if (mode === "mail") {
  const zoneName = config.require("zone");
  const zone = new cloud.DnsZone("zone", { name: zoneName });
  const zoneVerified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "60s" });
  const domain = new cloud.MailDomain("domain", { name: `news.${zoneName}` }, { dependsOn: [zoneVerified] });
  const records = new cloud.DnsRecordSet("records", {
    zoneId: zone.id,
    records: domain.records.apply((rs) => rs.map((r) => {
      const rec: { name: string; type: string; content: string; priority?: number } = { name: `${r.fqdn}.`, type: r.type, content: r.value };
      if (r.priority !== null) rec.priority = r.priority;
      return rec;
    })),
  });
  new cloud.MailDomainVerification("domain", { domainId: domain.id, timeout: "60s" }, { dependsOn: [records] });
}
