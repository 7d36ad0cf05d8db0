// Publishing a mail domain's records into the platform zone that hosts it, in one step (the
// GraphQL operation publishMailDomainRecords, conventions §2.6 V1MailDnsZone). Idempotent: a record
// already there is reused, never duplicated; an SPF record of the customer's own is never doubled.
import type { Principal } from "../auth";
import type { Emu } from "../emu";
import { badRequest, conflict } from "../errors";
import { createRecord, type DnsRecord, getZone, recordsOf, recordView } from "./dns";
import { txtValue } from "./dns-records";
import { getDomain, type MailRecord, recordsFor, zoneOf } from "./mail";

const sameContent = (r: DnsRecord, m: MailRecord) =>
  r.type === "TXT" ? txtValue(r.content) === m.value : r.content.toLowerCase() === m.value.toLowerCase() && r.priority === m.priority;

export function publishMailDomainRecords(emu: Emu, who: Principal, domainId: string) {
  const domain = getDomain(emu, who, domainId);
  const where = zoneOf(emu, domain);
  if (!where.hostedOnPlatform || !where.dnsZoneId) {
    throw badRequest(`domainId: the zone ${where.name} of ${domain.name} is not hosted on the platform in this workspace; publish the records at its DNS host`);
  }
  const zone = getZone(emu, who, where.dnsZoneId);
  const out: DnsRecord[] = [];
  let created = 0;
  for (const m of recordsFor(emu, domain)) {
    const host = m.zoneHost!;
    const here = recordsOf(emu, zone.id).filter((r) => r.name === host && r.type === m.type);
    const same = here.find((r) => sameContent(r, m));
    if (same) {
      out.push(same);
      continue;
    }
    const purpose = m.name === "SPF" ? /^v=spf1(\s|$)/i : m.name === "DMARC" ? /^v=DMARC1/i : undefined;
    const theirs = purpose && here.find((r) => purpose.test(txtValue(r.content)));
    // A second SPF record breaks SPF; the customer's own DMARC policy is theirs to keep.
    if (theirs && m.name === "SPF") {
      throw conflict(`${m.fqdn} already has an SPF record ('${txtValue(theirs.content)}'); merge include:${m.value.split("include:")[1]?.split(" ")[0]} into it instead`);
    }
    if (theirs) {
      out.push(theirs);
      continue;
    }
    out.push(createRecord(emu, zone, { name: host, type: m.type, content: m.value, ...(m.priority !== null ? { priority: m.priority } : {}) }, "MAIL"));
    created++;
  }
  return { domainId: domain.id, zoneId: zone.id, zoneName: zone.name, created, records: out.map(recordView) };
}
