// The simulated public DNS: what verify calls "resolve". Names under a domain delegated to the
// platform are answered from its published zones; every other name from the external records the
// control API sets (the customer's registrar or other DNS host). A new or changed record is
// visible only once settings.dnsPropagationMs has passed on the emulator's clock.
import { z } from "zod";
import type { Emu } from "../emu";
import { extendControl } from "../control";
import { badRequest, notFound } from "../errors";
import { parse } from "../http";
import { newId } from "../store";
import { type DnsRecord, type DnsZone, organisationalDomain, PLATFORM_NAMESERVERS, recordFqdn, txtValue } from "./dns-records";

export interface ExternalRecord {
  id: string;
  name: string;
  type: string;
  value: string;
  priority: number | null;
  ttl: number;
  createdAt: string;
  updatedAt: string;
}

export interface Answer {
  name: string;
  type: string;
  value: string;
  priority: number | null;
  ttl: number;
  source: "platform" | "external";
  /** Epoch ms when resolvers see this answer. */
  visibleAt: number;
}

const norm = (name: string) => name.trim().toLowerCase().replace(/\.$/, "");
const inside = (name: string, zone: string) => name === zone || name.endsWith(`.${zone}`);
const external = (emu: Emu) => emu.store.table<ExternalRecord>("publicDnsRecords");

/** The delegated domain (from settings.delegations) that holds `name`, if any. */
export function delegationOf(emu: Emu, name: string): string | undefined {
  const n = norm(name);
  return emu.settings.delegations.map(norm).filter((d) => inside(n, d)).sort((a, b) => b.length - a.length)[0];
}

export const isDelegated = (emu: Emu, name: string) => delegationOf(emu, name) !== undefined;

/**
 * Answers a query as public resolvers would see it now. With `includePending`, answers that are
 * published but still propagating are returned too (their visibleAt is in the future).
 */
export function resolve(emu: Emu, fqdn: string, type: string, opts: { includePending?: boolean } = {}): Answer[] {
  const name = norm(fqdn);
  const t = type.toUpperCase();
  const now = emu.clock.now();
  const delay = emu.settings.dnsPropagationMs;
  const delegated = delegationOf(emu, name);
  const answers: Answer[] = [];

  if (delegated) {
    const zone = platformZone(emu, name, delegated);
    if (t === "NS" && (name === delegated || name === zone?.name)) {
      return PLATFORM_NAMESERVERS.map((ns) => ({ name, type: "NS", value: ns, priority: null, ttl: 86_400, source: "platform", visibleAt: 0 }));
    }
    if (!zone) return [];
    const publishedAt = Date.parse(zone.publishedAt ?? zone.updatedAt);
    for (const r of emu.store.table<DnsRecord>("dnsRecords").where((r) => r.zoneId === zone.id && r.type === t)) {
      const full = r.name === "@" ? zone.name : `${r.name}.${zone.name}`;
      if (full !== name) continue;
      const visibleAt = Math.max(Date.parse(r.updatedAt), publishedAt) + delay;
      const answer = (content: string, priority: number | null, at: number): Answer => ({
        name, type: t, value: t === "TXT" ? txtValue(content) : norm(content), priority, ttl: r.ttl, source: "platform", visibleAt: at,
      });
      if (now >= visibleAt || opts.includePending) answers.push(answer(r.content, r.priority, visibleAt));
      // Until the change has propagated, resolvers still hold the previous answer.
      if (now < visibleAt && r.previous && Date.parse(r.createdAt) + delay <= now) answers.push(answer(r.previous.content, r.previous.priority, 0));
    }
    return answers.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
  }

  for (const r of external(emu).where((r) => r.name === name && r.type === t)) {
    const visibleAt = Date.parse(r.updatedAt) + delay;
    if (now >= visibleAt || opts.includePending) {
      answers.push({ name, type: t, value: t === "TXT" ? txtValue(r.value) : norm(r.value), priority: r.priority, ttl: r.ttl, source: "external", visibleAt });
    }
  }
  return answers.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
}

/** The published platform zone that holds `name` inside a delegated domain: the longest one. */
function platformZone(emu: Emu, name: string, delegated: string): DnsZone | undefined {
  return emu.store
    .table<DnsZone>("dnsZones")
    .where((z) => z.published && inside(name, z.name) && inside(z.name, delegated))
    .sort((a, b) => b.name.length - a.name.length)[0];
}

export interface Soa {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  /** The negative-caching TTL (RFC 2308). */
  minimum: number;
}

/** What the authoritative server of a name says about it, whatever the type asked. */
export interface Authority {
  /** The zone that answers: a published platform zone, else the delegated domain, else the registrable domain at the other DNS host. */
  zone: string;
  source: "platform" | "external";
  soa: Soa;
  /** The name has records of some type, or names below it: a miss is NODATA, not NXDOMAIN. */
  exists: boolean;
}

export const OTHER_DNS_HOST = "dns-host.test";
const SOA_TIMERS = { refresh: 3600, retry: 600, expire: 604_800, minimum: 300 };
const serialOf = (times: number[]) => Math.floor(Math.max(0, ...times) / 1000) >>> 0;

export function authority(emu: Emu, fqdn: string): Authority {
  const name = norm(fqdn);
  const now = emu.clock.now();
  const delay = emu.settings.dnsPropagationMs;
  const at = (n: string) => n === name || n.endsWith(`.${name}`);
  const delegated = delegationOf(emu, name);
  if (delegated) {
    const zone = platformZone(emu, name, delegated);
    const soa = (serial: number): Soa => ({ mname: PLATFORM_NAMESERVERS[0], rname: "hostmaster.cloudplatform.test", serial, ...SOA_TIMERS });
    if (!zone) return { zone: delegated, source: "platform", soa: soa(0), exists: name === delegated };
    const publishedAt = Date.parse(zone.publishedAt ?? zone.updatedAt);
    const seen = emu.store.table<DnsRecord>("dnsRecords").where((r) => {
      if (r.zoneId !== zone.id) return false;
      const visibleAt = Math.max(Date.parse(r.updatedAt), publishedAt) + delay;
      return now >= visibleAt || (r.previous !== null && Date.parse(r.createdAt) + delay <= now);
    });
    return {
      zone: zone.name,
      source: "platform",
      soa: soa(serialOf([publishedAt, ...seen.map((r) => Date.parse(r.updatedAt))])),
      exists: name === zone.name || seen.some((r) => at(recordFqdn(zone.name, r.name))),
    };
  }
  const zone = organisationalDomain(name);
  const seen = external(emu).where((r) => inside(r.name, zone) && now >= Date.parse(r.updatedAt) + delay);
  return {
    zone,
    source: "external",
    soa: { mname: `ns1.${OTHER_DNS_HOST}`, rname: `hostmaster.${OTHER_DNS_HOST}`, serial: serialOf(seen.map((r) => Date.parse(r.updatedAt))), ...SOA_TIMERS },
    exists: seen.some((r) => at(r.name)),
  };
}

// ---- control API: /_emulator/dns/... ----
const externalBody = z.object({
  name: z.string().min(1, "must be a full domain name"),
  type: z.string().min(1),
  value: z.string(),
  priority: z.number().int().min(0).nullable().optional(),
  ttl: z.number().int().min(1).optional(),
});
const delegationBody = z.object({ domain: z.string().min(3, "must be a domain name") });
const propagationBody = z.object({ dnsPropagationMs: z.number().int().min(0, "must be at least 0") });

export function addExternalRecord(emu: Emu, input: z.infer<typeof externalBody>): ExternalRecord {
  const now = emu.now();
  const type = input.type.toUpperCase();
  return external(emu).insert({
    id: newId(), name: norm(input.name), type, value: input.value, priority: type === "MX" ? (input.priority ?? 10) : (input.priority ?? null),
    ttl: input.ttl ?? 300, createdAt: now, updatedAt: now,
  });
}

extendControl((app, emu) => {
  const wrap = (fn: (req: any) => unknown) => async (req: any, reply: any) => {
    try {
      const out = await fn(req);
      return out === undefined ? reply.code(204).send() : reply.send(out);
    } catch (err: any) {
      if (typeof err?.statusCode === "number" && typeof err.body === "function") return reply.code(err.statusCode).send(err.body());
      throw err;
    }
  };
  const delegations = () => ({ data: [...emu.settings.delegations] });

  app.get("/_emulator/dns/delegations", wrap(delegations));
  app.post("/_emulator/dns/delegations", wrap((req) => {
    const d = norm(parse(delegationBody, req.body).domain);
    if (!d.includes(".")) throw badRequest("domain: must be a domain name such as example.com");
    if (!emu.settings.delegations.map(norm).includes(d)) emu.settings.delegations.push(d);
    return delegations();
  }));
  app.delete("/_emulator/dns/delegations/:domain", wrap((req) => {
    const d = norm(req.params.domain);
    const i = emu.settings.delegations.map(norm).indexOf(d);
    if (i < 0) throw notFound("Delegation", d);
    emu.settings.delegations.splice(i, 1);
  }));

  app.get("/_emulator/dns/records", wrap(() => ({ data: external(emu).all() })));
  app.post("/_emulator/dns/records", wrap((req) => addExternalRecord(emu, parse(externalBody, req.body))));
  app.patch("/_emulator/dns/records/:id", wrap((req) => {
    const r = external(emu).get(req.params.id);
    if (!r) throw notFound("External DNS record", req.params.id);
    const v = parse(z.object({ value: z.string(), priority: z.number().int().nullable().optional() }), req.body);
    return external(emu).update(r.id, { value: v.value, priority: v.priority ?? r.priority, updatedAt: emu.now() });
  }));
  app.delete("/_emulator/dns/records/:id", wrap((req) => {
    if (!external(emu).delete(req.params.id)) throw notFound("External DNS record", req.params.id);
  }));
  /** Without a query, forgets every external record; `?name=&type=` narrows it. */
  app.delete("/_emulator/dns/records", wrap((req) => {
    const name = typeof req.query.name === "string" ? norm(req.query.name) : undefined;
    const type = typeof req.query.type === "string" ? req.query.type.toUpperCase() : undefined;
    for (const r of external(emu).where((r) => (!name || r.name === name) && (!type || r.type === type))) external(emu).delete(r.id);
  }));

  app.get("/_emulator/dns/resolve", wrap((req) => {
    const name = String(req.query.name ?? "");
    const type = String(req.query.type ?? "A");
    if (!name) throw badRequest("name: the query parameter name is required");
    const answers = resolve(emu, name, type, { includePending: req.query.pending === "true" });
    return { name: norm(name), type: type.toUpperCase(), answers };
  }));

  app.get("/_emulator/dns/propagation", wrap(() => ({ dnsPropagationMs: emu.settings.dnsPropagationMs })));
  app.put("/_emulator/dns/propagation", wrap((req) => {
    emu.settings.dnsPropagationMs = parse(propagationBody, req.body).dnsPropagationMs;
    return { dnsPropagationMs: emu.settings.dnsPropagationMs };
  }));
});
