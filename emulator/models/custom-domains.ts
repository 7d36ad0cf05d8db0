// Custom domains of web services (infrastructure routes §2.6, §3, §4.9). The dnsTarget is computed
// on every read, so `conflicts` shows what public DNS and the workspace's zones hold right now.
// Verify resolves through the simulated public DNS (propagation delay included); a domain that
// turns ACTIVE, or one that is detached, starts a SYSTEM redeploy of its service.
import { z } from "zod";
import type { Principal } from "../auth";
import type { Emu } from "../emu";
import { badRequest, conflict, notFound } from "../errors";
import { newId } from "../store";
import { queueDeploy } from "./deploys";
import { derivedId, type DnsZone, domainName, isApex, recordFqdn, recordsOf, recordView, within, zonesOf } from "./dns";
import { txtValue } from "./dns-records";
import { type Answer, resolve } from "./public-dns";
import { type Service, serviceHost, services } from "./services";

/** The address apex domains point their A record at. */
export const PLATFORM_IPV4 = "203.0.113.80";
/** Hosts the platform serves itself; never a customer's custom domain. */
const PLATFORM_SUFFIXES = ["cloudplatform.app", "cloudplatform.test"];

export interface CustomDomain {
  id: string;
  serviceId: string;
  workspaceId: string;
  domain: string;
  status: "PENDING" | "ACTIVE";
  lastCheck: string | null;
  verifiedAt: string | null;
  createdAt: string;
}

export const createCustomDomainBody = z.object({ domain: z.string({ error: "must be a string (a domain name such as www.example.com)" }) });

const domains = (emu: Emu) => emu.store.table<CustomDomain>("customDomains");

// ---- create, read, delete ----
export function addCustomDomain(emu: Emu, svc: Service, input: z.infer<typeof createCustomDomainBody>): CustomDomain {
  // "A web service" (§4.9): the types that serve HTTP, apps and static sites alike.
  if (svc.type !== "WEB" && svc.type !== "STATIC") {
    throw badRequest(`serviceId: custom domains attach to web services (WEB or STATIC) only; service ${svc.id} is ${svc.type}`);
  }
  if (/[:/?#@]/.test(input.domain.trim())) {
    throw badRequest(`domain: '${input.domain}' must be a bare host name such as www.example.com (no scheme, port or path)`);
  }
  const domain = domainName(input.domain, "domain");
  if (domain.startsWith("*.") || PLATFORM_SUFFIXES.some((s) => within(domain, s))) {
    throw badRequest(`domain: ${domain} cannot be attached (wildcards and the platform's own hosts are not custom domains)`);
  }
  const held = domains(emu).find((d) => d.domain === domain);
  if (held) {
    throw conflict(held.serviceId === svc.id
      ? `domain: ${domain} is already attached to this service (custom domain ${held.id})`
      : `domain: ${domain} is already attached to another service; detach it there first`);
  }
  return domains(emu).insert({
    id: newId(), serviceId: svc.id, workspaceId: svc.workspaceId, domain, status: "PENDING", lastCheck: null, verifiedAt: null, createdAt: emu.now(),
  });
}

export function getCustomDomain(emu: Emu, who: Principal, id: string): CustomDomain {
  const d = domains(emu).get(id);
  if (!d || !who.canSee(d.workspaceId)) throw notFound("Custom domain", id);
  return d;
}

/** Oldest first. */
export const customDomainsOf = (emu: Emu, serviceId: string) =>
  domains(emu).where((d) => d.serviceId === serviceId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));

/** A workspace's custom domains, oldest first. */
export const customDomainsIn = (emu: Emu, workspaceId: string) =>
  domains(emu).where((d) => d.workspaceId === workspaceId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));

/** Detaches the domain; the redeploy drops its route. */
export function removeCustomDomain(emu: Emu, d: CustomDomain): void {
  domains(emu).delete(d.id);
  redeploy(emu, d.serviceId);
}

function redeploy(emu: Emu, serviceId: string): void {
  const svc = services(emu).get(serviceId);
  if (svc && svc.suspension === "NONE") queueDeploy(emu, svc, "SYSTEM");
}

// ---- the DNS target ----
/** A V1DnsRecord plus its full name; zoneId is null for a record no platform zone holds. */
type RecordView = Omit<ReturnType<typeof recordView>, "zoneId" | "type"> & { zoneId: string | null; type: string; fqdn: string };

/** The workspace zone that holds the domain (longest match), if any. */
const zoneFor = (emu: Emu, d: CustomDomain): DnsZone | undefined =>
  zonesOf(emu, d.workspaceId).filter((z) => within(d.domain, z.name)).sort((a, b) => b.name.length - a.name.length)[0];

const relative = (fqdn: string, zone: string) => (fqdn === zone ? "@" : fqdn.slice(0, -zone.length - 1));

/** What must exist at the domain: a CNAME to the service's host, or for an apex an A record. */
function expected(d: CustomDomain, svc: Service | undefined): { type: "CNAME" | "A"; content: string } {
  return isApex(d.domain) ? { type: "A", content: PLATFORM_IPV4 } : { type: "CNAME", content: svc ? serviceHost(svc) : "" };
}

/** True when a record of this type and value at the domain blocks the expected one. */
function blocks(want: { type: string; content: string }, type: string, value: string): boolean {
  // A CNAME cannot share its name with any other record; another CNAME there is wrong, not a conflict.
  if (want.type === "CNAME") return type !== "CNAME";
  // An apex needs the platform's A record alone: other addresses, IPv6 and aliases divert traffic.
  return (type === "A" && value !== want.content) || type === "AAAA" || type === "CNAME" || type === "ALIAS";
}

const BLOCKING_TYPES = ["A", "AAAA", "ALIAS", "CNAME", "MX", "TXT", "CAA", "SRV"];
/** A published zone record and its public answer are one record. */
const answerKey = (type: string, content: string) => `${type}|${type === "TXT" ? txtValue(content) : content.toLowerCase()}`;

/** Records in public DNS or in the workspace zone holding the name that block the expected record. */
function conflictsOf(emu: Emu, d: CustomDomain, want: { type: string; content: string }, zone: DnsZone | undefined): RecordView[] {
  const out: RecordView[] = [];
  const seen = new Set<string>();
  if (zone) {
    for (const r of recordsOf(emu, zone.id)) {
      if (recordFqdn(zone.name, r.name) !== d.domain || !blocks(want, r.type, r.content.toLowerCase())) continue;
      seen.add(answerKey(r.type, r.content));
      out.push({ ...recordView(r), fqdn: d.domain });
    }
  }
  for (const type of BLOCKING_TYPES) {
    for (const a of resolve(emu, d.domain, type)) {
      const key = answerKey(a.type, a.value);
      if (seen.has(key) || !blocks(want, a.type, a.value)) continue;
      seen.add(key);
      out.push(publicRecord(d, a));
    }
  }
  return out;
}

/** An answer of public DNS as a V1DnsRecord: no zone of the platform holds it. */
const publicRecord = (d: CustomDomain, a: Answer): RecordView => ({
  id: derivedId("public-dns", a.name, a.type, a.value), zoneId: null, name: a.name, fqdn: a.name, type: a.type,
  content: a.value, ttl: a.ttl, priority: a.priority, origin: "USER", editable: false, createdAt: d.createdAt, updatedAt: d.createdAt,
});

export function dnsTarget(emu: Emu, d: CustomDomain) {
  const svc = services(emu).get(d.serviceId);
  const want = expected(d, svc);
  const zone = zoneFor(emu, d);
  const existing = zone && recordsOf(emu, zone.id).find((r) => recordFqdn(zone.name, r.name) === d.domain && r.type === want.type && r.content === want.content);
  const record: RecordView = existing
    ? { ...recordView(existing), fqdn: d.domain }
    : {
        id: derivedId("custom-domain-record", d.id), zoneId: zone?.id ?? null, name: zone ? relative(d.domain, zone.name) : d.domain,
        fqdn: d.domain, type: want.type, content: want.content, ttl: 3600, priority: null, origin: "SERVICE", editable: true,
        createdAt: d.createdAt, updatedAt: d.createdAt,
      };
  return {
    cname: svc ? serviceHost(svc) : "",
    aRecord: isApex(d.domain) ? PLATFORM_IPV4 : null,
    isApex: isApex(d.domain),
    records: [record],
    conflicts: conflictsOf(emu, d, want, zone),
  };
}

// ---- verify ----
/** Re-checks DNS now. ACTIVE once the record resolves and nothing conflicts; that starts a redeploy. */
export function verifyCustomDomain(emu: Emu, d: CustomDomain): CustomDomain {
  const target = dnsTarget(emu, d);
  const want = target.records[0];
  const found = resolve(emu, d.domain, want.type);
  const matched = found.some((a) => a.value === want.content);
  const propagating = !matched && resolve(emu, d.domain, want.type, { includePending: true }).some((a) => a.value === want.content);
  const seen = [
    ...found.filter((a) => a.value !== want.content && want.type === "CNAME").map((a) => `CNAME ${a.value} (wrong target)`),
    ...target.conflicts.map((c) => `${c.type} ${c.content} (conflict, ${c.zoneId ? "in the platform zone" : "in public DNS"})`),
  ];
  const foundText = matched ? ["it", ...seen].join(", ") : seen.length ? seen.join(", ") : propagating ? "nothing yet (published, still propagating)" : "nothing";
  const advice = target.conflicts.length ? "; remove each conflicting record" : "";
  const lastCheck = `${want.type} ${d.domain}: expected ${want.content}; found ${foundText}${advice}`;
  const active = matched && target.conflicts.length === 0;
  if (active && d.status !== "ACTIVE") {
    const updated = domains(emu).update(d.id, { status: "ACTIVE", verifiedAt: emu.now(), lastCheck });
    redeploy(emu, d.serviceId);
    return updated;
  }
  return domains(emu).update(d.id, { lastCheck });
}

// ---- views ----
export const customDomainView = (emu: Emu, d: CustomDomain) => ({
  id: d.id,
  serviceId: d.serviceId,
  domain: d.domain,
  status: d.status,
  lastCheck: d.lastCheck,
  dnsTarget: dnsTarget(emu, d),
  verifiedAt: d.verifiedAt,
  createdAt: d.createdAt,
});

/** A service's custom domains go with it (cascades.ts). */
export function deleteCustomDomainsOf(emu: Emu, serviceId: string): void {
  for (const d of customDomainsOf(emu, serviceId)) domains(emu).delete(d.id);
}
