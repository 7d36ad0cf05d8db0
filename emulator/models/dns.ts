// DNS zones and records (infrastructure routes §2.1, §3, §4.1). A zone stays unpublished until its
// owner proves control (nameservers pointed at the platform, or the verification TXT record found in
// public DNS); only published zones of delegated domains are served by the simulated public DNS.
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { badRequest, conflict, notFound } from "../errors";
import { newId } from "../store";
import { contentProblem, type DnsRecord, type DnsZone, LABEL, organisationalDomain, PLATFORM_NAMESERVERS, RECORD_TYPES, recordFqdn, recordRows, recordsByName, recordsByZone, type RecordType, takesPriority, txtValue, zonesByName, zonesByTeam, zoneRows } from "./dns-records";
import { isDelegated, resolve } from "./public-dns";

// Routes and other models read the zone and record rows through this module.
export { organisationalDomain, RECORD_TYPES, recordFqdn, recordsByZone } from "./dns-records";
export type { DnsRecord, DnsZone, RecordType } from "./dns-records";

// ---- names ----

/** Lowercase, no trailing dot; throws a 400 naming `field` when it is not a domain name. */
export function domainName(raw: string, field = "name"): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, "");
  const labels = name.split(".");
  if (name.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^[0-9]+$/.test(labels[labels.length - 1])) {
    throw badRequest(`${field}: '${raw}' is not a domain name (at least two dot-separated labels of letters, digits and '-')`);
  }
  return name;
}

export const isApex = (name: string) => organisationalDomain(name) === name;

/** True when `name` is `zone` or inside it. */
export const within = (name: string, zone: string) => name === zone || name.endsWith(`.${zone}`);


// ---- bodies ----
/** A record is sent whole: name, type and content are required in a PATCH as in a POST (§4.1). */
const whole = (rule: string) => ({ error: (i: { input: unknown }) => (i.input === undefined ? "is required (a record is sent with name, type and content; ttl and priority are optional)" : rule) });
const recordBody = z.object({
  name: z.string(whole("must be a string: '@' for the apex or a label")).min(1, "must not be empty"),
  type: z.string(whole("must be a string")),
  content: z.string(whole("must be a string")).min(1, "must not be empty").max(4096, "must be at most 4096 characters"),
  ttl: z.number().int("must be an integer").min(60, "must be at least 60 seconds").max(86_400, "must be at most 86400 seconds").optional(),
  priority: z.number().int("must be an integer").min(0, "must be between 0 and 65535").max(65_535, "must be between 0 and 65535").nullable().optional(),
});
export const createRecordBody = recordBody;
/** PATCH: name, type and content are required (§4.1); ttl and priority, when left out, keep the record's. */
export const patchRecordBody = z.strictObject(recordBody.shape);
export const createZoneBody = z.object({ name: z.string({ error: "must be a string (a domain name)" }) });

const zones = zoneRows;
const records = recordRows;

// ---- zones ----
export function createZone(emu: Emu, ws: Workspace, input: z.infer<typeof createZoneBody>): DnsZone {
  const name = domainName(input.name);
  const named = zonesByName(emu).list(name);
  const held = named.find((z) => z.published);
  if (held) throw conflict(`name: the zone ${name} is already published${held.teamId === ws.id ? ` in this workspace (zone ${held.id})` : " by another workspace"}`);
  const mine = named.find((z) => z.teamId === ws.id);
  if (mine) throw conflict(`name: this workspace already has a zone ${name} (zone ${mine.id})`);
  const now = emu.now();
  return zones(emu).insert({
    id: newId(),
    teamId: ws.id,
    name,
    published: false,
    publishedAt: null,
    verifiedAt: null,
    verificationMethod: null,
    verificationToken: randomBytes(16).toString("hex"),
    lastError: null,
    createdAt: now,
    updatedAt: now,
  });
}

export function getZone(emu: Emu, who: Principal, id: string): DnsZone {
  const zone = zones(emu).get(id);
  if (!zone || !who.canSee(zone.teamId)) throw notFound("DNS zone", id);
  return zone;
}

export const zonesOf = (emu: Emu, workspaceId: string) => zonesByTeam(emu).list(workspaceId);
export const allZones = (emu: Emu) => zones(emu).all();

export function verificationRecord(zone: DnsZone) {
  if (zone.published) return null;
  return {
    host: "_cloudplatform-verify",
    name: `_cloudplatform-verify.${zone.name}`,
    type: "TXT" as const,
    value: `cloudplatform-verify=${zone.verificationToken}`,
  };
}

/** Re-checks ownership now: nameservers first, then the TXT record. */
export function verifyZone(emu: Emu, zone: DnsZone): DnsZone {
  if (zone.published) return zone;
  const now = emu.now();
  const txt = verificationRecord(zone)!;
  let method: DnsZone["verificationMethod"] = null;
  if (isDelegated(emu, zone.name)) method = "NS";
  else if (resolve(emu, txt.name, "TXT").some((a) => a.value === txt.value)) method = "TXT";
  if (!method) {
    const found = resolve(emu, txt.name, "TXT").map((a) => `'${a.value}'`);
    return zones(emu).update(zone.id, {
      lastError:
        `Ownership of ${zone.name} is not proven yet: its nameservers do not point at ${PLATFORM_NAMESERVERS.join(", ")}, ` +
        `and the TXT record ${txt.name} with value '${txt.value}' was ${found.length ? `not found (found ${found.join(", ")})` : "not found in public DNS"}`,
      updatedAt: now,
    });
  }
  const held = zonesByName(emu).list(zone.name).find((z) => z.published && z.id !== zone.id);
  if (held) throw conflict(`The zone ${zone.name} is already published by ${held.teamId === zone.teamId ? `zone ${held.id} of this workspace` : "another workspace"}`);
  return zones(emu).update(zone.id, { published: true, publishedAt: now, verifiedAt: now, verificationMethod: method, lastError: null, updatedAt: now });
}

// ---- records ----
/** A zone's records, oldest first. */
export const recordsOf = (emu: Emu, zoneId: string) => recordsByZone(emu).list(zoneId);

export function getRecord(emu: Emu, who: Principal, id: string): { record: DnsRecord; zone: DnsZone } {
  const record = records(emu).get(id);
  const zone = record && zones(emu).get(record.zoneId);
  if (!record || !zone || !who.canSee(zone.teamId)) throw notFound("DNS record", id);
  return { record, zone };
}

/** `@`, a relative label, or (tolerated) the full name with or without a trailing dot. */
function relativeName(zone: DnsZone, raw: string): string {
  const n = raw.trim().toLowerCase().replace(/\.$/, "");
  if (n === "@" || n === "" || n === zone.name) return "@";
  const rel = n.endsWith(`.${zone.name}`) ? n.slice(0, -zone.name.length - 1) : n;
  const labels = rel.split(".");
  if (!labels.every((l) => l === "*" || LABEL.test(l))) {
    throw badRequest(`name: '${raw}' must be '@' for the apex or a label relative to ${zone.name} (letters, digits, '-', '_')`);
  }
  return rel;
}

type RecordInput = z.infer<typeof recordBody>;

/** A record from its input; `kept` gives a PATCH's ttl and priority where the body leaves them out. */
function validRecord(zone: DnsZone, input: RecordInput, kept?: Pick<DnsRecord, "ttl" | "priority">): Omit<DnsRecord, "id" | "zoneId" | "origin" | "editable" | "previous" | "createdAt" | "updatedAt"> {
  const type = input.type.trim().toUpperCase() as RecordType;
  if (!RECORD_TYPES.includes(type)) throw badRequest(`type: must be one of ${RECORD_TYPES.join(", ")}; got '${input.type}'`);
  const name = relativeName(zone, input.name);
  let content = input.content.trim();
  const errors: string[] = [];
  const problem = contentProblem(type, content);
  if (problem) errors.push(`content: ${problem}`);
  if (type === "AAAA") content = content.toLowerCase();
  if (type === "CNAME" || type === "ALIAS" || type === "NS" || type === "MX") content = content.toLowerCase().replace(/\.$/, "");
  if (type === "CNAME" && name === "@") errors.push("name: a CNAME cannot be placed at the zone apex; use ALIAS");
  const needsPriority = takesPriority(type);
  if (!needsPriority && input.priority !== undefined && input.priority !== null) errors.push(`priority: only MX and SRV records take a priority`);
  if (errors.length) throw badRequest(errors);
  return { name, type, content, ttl: input.ttl ?? kept?.ttl ?? 3600, priority: needsPriority ? (input.priority ?? kept?.priority ?? 10) : null };
}

function clashes(emu: Emu, zone: DnsZone, r: Pick<DnsRecord, "name" | "type" | "content">, selfId?: string): void {
  const same = recordsByName(emu).list(`${zone.id} ${r.name}`).filter((o) => o.id !== selfId);
  const identical = same.find((o) => o.type === r.type && contentKey(o.type, o.content) === contentKey(r.type, r.content));
  if (identical) throw conflict(`An identical ${r.type} record already exists at ${recordFqdn(zone.name, r.name)} (record ${identical.id})`);
  if (r.type === "CNAME" && same.length) throw conflict(`A CNAME at ${recordFqdn(zone.name, r.name)} cannot coexist with other records there`);
  if (same.some((o) => o.type === "CNAME")) throw conflict(`${recordFqdn(zone.name, r.name)} already has a CNAME record; no other record can be added there`);
}

const contentKey = (type: string, content: string) => (type === "TXT" ? txtValue(content) : content.toLowerCase());

export function createRecord(emu: Emu, zone: DnsZone, input: RecordInput, origin: DnsRecord["origin"] = "USER"): DnsRecord {
  const r = validRecord(zone, input);
  clashes(emu, zone, r);
  const now = emu.now();
  return records(emu).insert({ id: newId(), zoneId: zone.id, ...r, origin, editable: origin === "USER", previous: null, createdAt: now, updatedAt: now });
}

export function patchRecord(emu: Emu, zone: DnsZone, record: DnsRecord, input: RecordInput): DnsRecord {
  if (!record.editable) throw conflict(`Record ${record.id} was created by the platform (origin ${record.origin}) and cannot be edited`);
  const r = validRecord(zone, input, record);
  clashes(emu, zone, r, record.id);
  const moved = r.name !== record.name || r.type !== record.type;
  const changed = r.content !== record.content || r.priority !== record.priority;
  return records(emu).update(record.id, {
    ...r,
    // Resolvers keep the old answer until the new one has propagated; a move is a new record.
    previous: moved ? null : changed ? { content: record.content, priority: record.priority } : record.previous,
    updatedAt: changed || moved ? emu.now() : record.updatedAt,
  });
}

export function deleteRecord(emu: Emu, record: DnsRecord): void {
  if (!record.editable) throw conflict(`Record ${record.id} was created by the platform (origin ${record.origin}) and cannot be deleted`);
  records(emu).delete(record.id);
}

/** The zone as a zone file: long TXT values are split into 255-character strings. */
export function zoneFile(emu: Emu, zone: DnsZone): string {
  const quote = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  const lines = [`$ORIGIN ${zone.name}.`, "$TTL 3600", `; zone ${zone.id} exported ${emu.now()}`];
  for (const ns of PLATFORM_NAMESERVERS) lines.push(`@\t3600\tIN\tNS\t${ns}.`);
  for (const r of recordsOf(emu, zone.id)) {
    let data: string;
    if (r.type === "TXT") {
      const v = txtValue(r.content);
      const parts = v.match(/[\s\S]{1,255}/g) ?? [""];
      data = parts.map(quote).join(" ");
    } else if (r.type === "MX" || r.type === "SRV") data = `${r.priority} ${r.content}${r.type === "MX" ? "." : ""}`;
    else if (r.type === "CNAME" || r.type === "NS" || r.type === "ALIAS") data = `${r.content}.`;
    else data = r.content;
    lines.push(`${r.name}\t${r.ttl}\tIN\t${r.type}\t${data}`);
  }
  return lines.join("\n") + "\n";
}

// ---- views ----
export const zoneView = (z: DnsZone) => ({
  id: z.id,
  teamId: z.teamId,
  name: z.name,
  published: z.published,
  publishedAt: z.publishedAt,
  verifiedAt: z.verifiedAt,
  verificationMethod: z.verificationMethod,
  verificationRecord: verificationRecord(z),
  lastError: z.lastError,
  createdAt: z.createdAt,
  updatedAt: z.updatedAt,
});

export const recordView = (r: DnsRecord) => ({
  id: r.id,
  zoneId: r.zoneId,
  name: r.name,
  type: r.type,
  content: r.content,
  ttl: r.ttl,
  priority: r.priority,
  origin: r.origin,
  editable: r.editable,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** A stable id from parts, for rows the emulator derives instead of storing. */
export const derivedId = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 24);
