// The simulated public DNS: what verify calls "resolve". Names under a domain delegated to the
// platform are answered from its published zones; every other name from the external records the
// control API sets (the customer's registrar or other DNS host). A new or changed record is
// visible only once settings.dnsPropagationMs has passed on the emulator's clock.
import { z } from "zod";
import type { Emu } from "../emu";
import { badRequest, notFound } from "../errors";
import { newId } from "../store";
import { contentProblem, type DnsRecord, type DnsZone, LABEL, organisationalDomain, PLATFORM_NAMESERVERS, RECORD_TYPES, recordFqdn, recordsByZone, takesPriority, txtValue } from "./dns-records";

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

/** A record as the zone that serves it holds it now: owner name in full, value as resolvers read it. */
interface Held {
  owner: string;
  type: string;
  value: string;
  priority: number | null;
  ttl: number;
  /** When resolvers see this value; a previous value still answered while a change propagates has 0. */
  visibleAt: number;
  changedAtMs: number;
}

interface AnsweringZone {
  /** The zone's apex: a published platform zone, the delegated domain, or the registrable domain at the other DNS host. */
  apex: string;
  source: Answer["source"];
  zone?: DnsZone;
  delegated?: string;
  records(opts: { includePending?: boolean }): Held[];
}

/** The zone that answers for `name`, and its records as resolvers see them now. */
function answeringZone(emu: Emu, name: string): AnsweringZone {
  const now = emu.clock.now();
  const delay = emu.settings.dnsPropagationMs;
  const delegated = delegationOf(emu, name);
  const value = (type: string, content: string) => (type === "TXT" ? txtValue(content) : norm(content));
  if (delegated) {
    const zone = platformZone(emu, name, delegated);
    if (!zone) return { apex: delegated, source: "platform", delegated, records: () => [] };
    const publishedAt = Date.parse(zone.publishedAt ?? zone.updatedAt);
    return {
      apex: zone.name, source: "platform", zone, delegated,
      records: ({ includePending }) => recordsByZone(emu).list(zone.id).flatMap((r) => {
        const owner = recordFqdn(zone.name, r.name);
        const visibleAt = Math.max(Date.parse(r.updatedAt), publishedAt) + delay;
        const held = (content: string, priority: number | null, at: number): Held => ({
          owner, type: r.type, value: value(r.type, content), priority, ttl: r.ttl, visibleAt: at, changedAtMs: Date.parse(r.updatedAt),
        });
        const out: Held[] = [];
        if (now >= visibleAt || includePending) out.push(held(r.content, r.priority, visibleAt));
        // Until the change has propagated, resolvers still hold the previous answer.
        if (now < visibleAt && r.previous && Date.parse(r.createdAt) + delay <= now) out.push(held(r.previous.content, r.previous.priority, 0));
        return out;
      }),
    };
  }
  const apex = organisationalDomain(name);
  return {
    apex, source: "external",
    records: ({ includePending }) => external(emu).where((r) => inside(r.name, apex)).flatMap((r) => {
      const visibleAt = Date.parse(r.updatedAt) + delay;
      return now >= visibleAt || includePending
        ? [{ owner: r.name, type: r.type, value: value(r.type, r.value), priority: r.priority, ttl: r.ttl, visibleAt, changedAtMs: Date.parse(r.updatedAt) }]
        : [];
    }),
  };
}

/**
 * The owner whose records answer for `name` (RFC 4592): the name itself when it exists (it holds
 * records, or names below it do: an empty non-terminal), else the wildcard `*.<closest encloser>`
 * when that holds records; undefined when neither (NXDOMAIN).
 */
function answeringOwner(held: Held[], name: string, apex: string): string | undefined {
  const exists = (n: string) => held.some((h) => h.owner === n || h.owner.endsWith(`.${n}`));
  if (exists(name)) return name;
  if (name === apex || !inside(name, apex)) return undefined;
  let encloser = name.slice(name.indexOf(".") + 1);
  while (encloser !== apex && !exists(encloser)) encloser = encloser.slice(encloser.indexOf(".") + 1);
  const wildcard = `*.${encloser}`;
  return held.some((h) => h.owner === wildcard) ? wildcard : undefined;
}

/**
 * Answers a query as public resolvers would see it now. With `includePending`, answers that are
 * published but still propagating are returned too (their visibleAt is in the future). A name that
 * does not exist is answered from a wildcard that covers it, under the name asked (RFC 4592).
 */
export function resolve(emu: Emu, fqdn: string, type: string, opts: { includePending?: boolean } = {}): Answer[] {
  const name = norm(fqdn);
  const t = type.toUpperCase();
  const zone = answeringZone(emu, name);
  if (zone.delegated && t === "NS" && (name === zone.delegated || name === zone.zone?.name)) {
    return PLATFORM_NAMESERVERS.map((ns) => ({ name, type: "NS", value: ns, priority: null, ttl: 86_400, source: "platform", visibleAt: 0 }));
  }
  const held = zone.records(opts);
  const owner = answeringOwner(held, name, zone.apex);
  return held
    .filter((h) => h.owner === owner && h.type === t)
    .map((h) => ({ name, type: t, value: h.value, priority: h.priority, ttl: h.ttl, source: zone.source, visibleAt: h.visibleAt }))
    .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
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
  const zone = answeringZone(emu, name);
  const held = zone.records({});
  // A name a wildcard covers exists too: a miss there is NODATA (RFC 4592).
  const exists = name === zone.apex && zone.source === "platform" || answeringOwner(held, name, zone.apex) !== undefined;
  if (zone.source === "external") {
    const soa = { mname: `ns1.${OTHER_DNS_HOST}`, rname: `hostmaster.${OTHER_DNS_HOST}`, serial: serialOf(held.map((h) => h.changedAtMs)), ...SOA_TIMERS };
    return { zone: zone.apex, source: "external", soa, exists };
  }
  const publishedAt = zone.zone ? [Date.parse(zone.zone.publishedAt ?? zone.zone.updatedAt)] : [];
  const soa = { mname: PLATFORM_NAMESERVERS[0], rname: "hostmaster.cloudplatform.test", serial: serialOf([...publishedAt, ...held.map((h) => h.changedAtMs)]), ...SOA_TIMERS };
  return { zone: zone.apex, source: "platform", soa, exists };
}

// ---- control API: /_emulator/dns/... ----
/** A full domain name of two labels or more; a leading `*` label (a wildcard) only where `wildcard` allows it. */
const isDomain = (raw: string, wildcard: boolean) => {
  const labels = norm(raw).split(".");
  return norm(raw).length <= 253 && labels.length >= 2 && labels.every((l, i) => LABEL.test(l) || (wildcard && i === 0 && l === "*"));
};
const domainField = (wildcard: boolean) => z.string({ error: "must be a string" }).refine((n) => isDomain(n, wildcard), {
  error: (i) => `'${String(i.input)}' is not a full domain name such as www.example.com${wildcard ? " (a leading '*.' makes a wildcard)" : ""}`,
});
const typeField = z.string({ error: "must be a string" }).transform((t) => t.trim().toUpperCase())
  .refine((t) => (RECORD_TYPES as readonly string[]).includes(t), `must be one of ${RECORD_TYPES.join(", ")}`);

/** What is wrong with an external record's value and priority for its type, by field. */
function externalProblems(type: string, value: string, priority: number | null | undefined): [field: string, problem: string][] {
  const problems: [string, string][] = [];
  const problem = contentProblem(type, value.trim());
  if (problem) problems.push(["value", problem]);
  if (priority != null && !takesPriority(type)) problems.push(["priority", "only MX and SRV records take a priority"]);
  return problems;
}

const priorityField = z.number().int("must be an integer").min(0, "must be between 0 and 65535").max(65_535, "must be between 0 and 65535").nullable().optional();
export const externalBody = z.strictObject({
  name: domainField(true),
  type: typeField,
  value: z.string({ error: "must be a string" }).max(4096, "must be at most 4096 characters"),
  priority: priorityField,
  ttl: z.number().int("must be an integer").min(1, "must be between 1 and 2147483647").max(2_147_483_647, "must be between 1 and 2147483647").optional(),
}).superRefine((r, ctx) => {
  for (const [field, message] of externalProblems(r.type, r.value, r.priority)) ctx.addIssue({ code: "custom", path: [field], message });
});
export const externalPatch = z.strictObject({ value: z.string({ error: "must be a string" }).max(4096, "must be at most 4096 characters"), priority: priorityField });
export const externalQuery = z.strictObject({ name: domainField(true).optional(), type: typeField.optional() });
export const resolveQuery = z.strictObject({
  name: domainField(true),
  type: typeField.default("A"),
  pending: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
});
export const delegationBody = z.strictObject({ domain: domainField(false) });
export const propagationBody = z.strictObject({
  dnsPropagationMs: z.number().int("must be an integer").min(0, "must be between 0 and 86400000").max(86_400_000, "must be between 0 and 86400000"),
});

export function addExternalRecord(emu: Emu, input: z.infer<typeof externalBody>): ExternalRecord {
  const now = emu.now();
  const type = input.type.toUpperCase();
  return external(emu).insert({
    id: newId(), name: norm(input.name), type, value: input.value, priority: type === "MX" ? (input.priority ?? 10) : (input.priority ?? null),
    ttl: input.ttl ?? 300, createdAt: now, updatedAt: now,
  });
}

/** The domains delegated to the platform (`--delegate`, or added through the control API). */
export const delegations = (emu: Emu) => ({ data: [...emu.settings.delegations] });

export function addDelegation(emu: Emu, domain: string) {
  const d = norm(domain);
  if (!emu.settings.delegations.map(norm).includes(d)) emu.settings.delegations.push(d);
  return delegations(emu);
}

export function removeDelegation(emu: Emu, domain: string): void {
  const d = norm(domain);
  const i = emu.settings.delegations.map(norm).indexOf(d);
  if (i < 0) throw notFound("Delegation", d);
  emu.settings.delegations.splice(i, 1);
}

export const externalRecords = (emu: Emu) => external(emu).all();

export function patchExternalRecord(emu: Emu, id: string, body: z.infer<typeof externalPatch>): ExternalRecord {
  const r = external(emu).get(id);
  if (!r) throw notFound("External DNS record", id);
  const problems = externalProblems(r.type, body.value, body.priority);
  if (problems.length) throw badRequest(problems.map(([field, problem]) => `${field}: ${problem}`));
  return external(emu).update(r.id, { value: body.value, priority: body.priority ?? r.priority, updatedAt: emu.now() });
}

export function deleteExternalRecord(emu: Emu, id: string): void {
  if (!external(emu).delete(id)) throw notFound("External DNS record", id);
}

/** Without a name or type, forgets every external record; either narrows it. */
export function deleteExternalRecords(emu: Emu, query: z.infer<typeof externalQuery>): void {
  const name = query.name === undefined ? undefined : norm(query.name);
  for (const r of external(emu).where((r) => (!name || r.name === name) && (!query.type || r.type === query.type))) external(emu).delete(r.id);
}

export function resolveView(emu: Emu, query: z.infer<typeof resolveQuery>) {
  return { name: norm(query.name), type: query.type, answers: resolve(emu, query.name, query.type, { includePending: query.pending === "true" }) };
}

export function setPropagation(emu: Emu, ms: number) {
  emu.settings.dnsPropagationMs = ms;
  return { dnsPropagationMs: emu.settings.dnsPropagationMs };
}
