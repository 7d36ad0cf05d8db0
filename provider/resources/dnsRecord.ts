// DnsRecord: one record of a platform zone (infrastructure routes §2.1, §4.1). Names and values are
// normalised before they are compared, so the way a program spells a record (a full name or a
// relative one, a trailing dot, a quoted or split TXT value, letter case) never shows as drift.
import { isIP } from "node:net";
import { z } from "zod";
import { V1DnsRecord } from "../api/dns";
import { findZone, normaliseDomain } from "./dnsZone";
import {
  type CheckFailure, checkWith, type Rule, type Context, defineResource, deleteIgnoringNotFound, diffWith, findOrUndefined, isUnknown, same,
  pathPart, splitFirst,
} from "./framework";
import { id } from "./rules";

// ---- normalisation ----
export const RECORD_TYPES = ["A", "AAAA", "ALIAS", "CAA", "CNAME", "MX", "NS", "SRV", "TXT"] as const;
const HOST_TYPES = new Set(["CNAME", "ALIAS", "NS", "MX"]);

export const normaliseType = (type: string) => type.trim().toUpperCase();

/**
 * `@` for the zone apex, else labels relative to the zone. A full name (with or without the
 * trailing dot) inside the zone becomes relative; without the zone name only case and the
 * trailing dot are normalised.
 */
export function normaliseName(name: string, zoneName?: string): string {
  const n = normaliseDomain(name);
  if (n === "" || n === "@") return "@";
  if (!zoneName) return n;
  const zone = normaliseDomain(zoneName);
  if (n === zone) return "@";
  if (n.endsWith(`.${zone}`)) return n.slice(0, -zone.length - 1);
  return n;
}

/** True when `name` ends with a dot: written as a full name, so it must lie inside the zone. */
export const isAbsolute = (name: string) => name.trim().endsWith(".") && name.trim() !== ".";

/** A TXT value as resolvers return it: `"a" "b"` (quoted, maybe split) becomes `ab`. */
export function unquoteTxt(content: string): string {
  const t = content.trim();
  if (!/^".*"$/s.test(t)) return t;
  const parts = [...t.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1"));
  return parts.length ? parts.join("") : t;
}

export function normaliseContent(type: string, content: string): string {
  const t = normaliseType(type);
  const c = content.trim();
  if (t === "TXT") return unquoteTxt(c);
  if (HOST_TYPES.has(t)) return normaliseDomain(c);
  if (t === "AAAA") return c.toLowerCase();
  if (t === "SRV") {
    const parts = c.split(/\s+/);
    return parts.map((p, i) => (i === parts.length - 1 ? normaliseDomain(p) : p)).join(" ");
  }
  if (t === "CAA") {
    const m = /^(\d+)\s+(\S+)\s+(.*)$/.exec(c);
    return m ? `${m[1]} ${m[2].toLowerCase()} ${m[3].trim()}` : c;
  }
  return c;
}

export interface RecordSpec {
  name: string;
  type: string;
  content: string;
  ttl?: number;
  priority?: number;
}

/**
 * The canonical form of a record. An MX written as "10 mx.example.com" carries its priority in
 * the content; it is moved to `priority`.
 */
export function normaliseRecord<T extends RecordSpec>(r: T, zoneName?: string): T {
  const type = normaliseType(r.type);
  let content = r.content;
  let priority = r.priority;
  if (type === "MX" && priority === undefined) {
    const m = /^\s*(\d+)\s+(\S+)\s*$/.exec(content);
    if (m) {
      priority = Number(m[1]);
      content = m[2];
    }
  }
  const out = { ...r, name: normaliseName(r.name, zoneName), type, content: normaliseContent(type, content) };
  if (priority !== undefined) out.priority = priority;
  return out;
}

/** Identity of a record within a zone: name, type and normalised content. */
export const recordKey = (r: Pick<RecordSpec, "name" | "type" | "content">) => `${r.name}|${r.type}|${r.content}`;

/**
 * Input rules shared with DnsRecordSet (spec §2.1 V1DnsRecord and the record routes), one rule per
 * concern so each runs as soon as the properties it reads are known.
 */
export function recordRules(path: string): Rule<RecordSpec>[] {
  const fail = (property: string, reason: string): CheckFailure[] => [{ property: `${path}${property}`, reason: `${path}${property}: ${reason}` }];
  const HOST = /^(?=.{1,253}\.?$)([a-z0-9_*-]{1,63}\.)*[a-z0-9_-]{1,63}\.?$/i;
  return [
    (r) => ((RECORD_TYPES as readonly string[]).includes(normaliseType(r.type)) ? [] : fail("type", `must be one of ${RECORD_TYPES.join(", ")}; got '${r.type}'`)),
    (r) => {
      const type = normaliseType(r.type);
      return r.priority !== undefined && type !== "MX" && type !== "SRV" ? fail("priority", "only MX and SRV records take a priority") : [];
    },
    (r) => {
      // The platform's label rule: letters, digits, '-' and '_', 1 to 63 of them, no '-' at either end; '*' alone.
      const bare = r.name.trim().replace(/\.$/, "");
      const labels = bare.split(".");
      return r.name.trim() === "@" || (bare !== "" && labels.every((l) => l === "*" || /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/.test(l)))
        ? []
        : fail("name", "must be '@', a name relative to the zone (e.g. 'www' or 'sel._domainkey.mail') or a full name ending with '.': labels of 1 to 63 letters, digits, '-' or '_', not starting or ending with '-' ('*' alone)");
    },
    (r) => (normaliseType(r.type) === "CNAME" && r.name.trim() === "@" ? fail("name", "a CNAME cannot be placed at the zone apex ('@'); use an ALIAS record") : []),
    (r) => {
      const { type, content } = normaliseRecord({ type: r.type, content: r.content, name: "@", priority: r.priority });
      const c = content.trim();
      if (c === "") return fail("content", "must not be empty (a quoted or blank value holds nothing)");
      switch (type) {
        case "A":
          return isIP(c) === 4 ? [] : fail("content", `'${c}' is not an IPv4 address (an A record holds one, e.g. 203.0.113.10)`);
        case "AAAA":
          return isIP(c) === 6 ? [] : fail("content", `'${c}' is not an IPv6 address (an AAAA record holds one, e.g. 2001:db8::1)`);
        case "CNAME":
        case "ALIAS":
        case "NS":
        case "MX":
          return HOST.test(c) ? [] : fail("content", `'${c}' is not a host name (a ${type} record points to one)`);
        case "SRV":
          return /^\d+ \d+ \S+$/.test(c) ? [] : fail("content", "an SRV record is '<weight> <port> <target>' (the priority goes in priority)");
        case "CAA":
          return /^\d+ (issue|issuewild|iodef) \S+/i.test(c) ? [] : fail("content", `a CAA record is '<flags> <issue|issuewild|iodef> "<value>"'`);
        default:
          return [];
      }
    },
  ];
}

/** Every record rule over a record whose properties are all known. */
export function recordFailures(r: RecordSpec, path: string): CheckFailure[] {
  return recordRules(path).flatMap((rule) => rule(r));
}

// ---- schemas ----
export const recordFields = {
  name: z.string({ error: "must be a string: '@' for the apex, a label relative to the zone, or a full name" }).min(1, "must not be empty")
    .describe("'@' for the zone apex, or a name relative to the zone ('www', 'sel._domainkey.mail'). A full name inside the zone (with or without the trailing dot) is accepted and compared as the relative one; case is ignored."),
  type: z.string({ error: "must be a string" }).describe(`Record type: ${RECORD_TYPES.join(", ")} (case is ignored).`),
  content: z.string({ error: "must be a string" }).min(1, "must not be empty").max(4096, "must be at most 4096 characters")
    .describe("The record's value. TXT values may be given quoted or split into quoted strings; host names may carry a trailing dot."),
  ttl: z.number({ error: "must be a number of seconds" }).int("must be an integer").min(60, "must be at least 60 seconds").max(86_400, "must be at most 86400 seconds")
    .describe("Time to live in seconds. Default: the platform's (3600).").optional(),
  priority: z.number({ error: "must be a number" }).int("must be an integer").min(0, "must be between 0 and 65535").max(65_535, "must be between 0 and 65535")
    .describe("Priority, for MX and SRV records only. Default 10 for MX.").optional(),
};

export const dnsRecordInputs = z.object({
  zoneId: id("The zone the record belongs to. Changing it replaces the record."),
  ...recordFields,
});
export type DnsRecordInputs = z.infer<typeof dnsRecordInputs>;

/** A record as the provider reports it; DnsRecordSet lists the same fields per record. */
export const recordOutputFields = {
  name: z.string().describe("'@' or the name relative to the zone, as the platform stores it."),
  fqdn: z.string().describe("The record's full name."),
  type: z.string().describe("Record type."),
  content: z.string().describe("The record's value."),
  ttl: z.number().nullable().describe("Time to live in seconds."),
  priority: z.number().nullable().describe("Priority (MX, SRV)."),
};

export const dnsRecordOutputs = z.object({
  zoneId: z.string().describe("The zone the record belongs to."),
  zoneName: z.string().describe("The zone's domain name."),
  ...recordOutputFields,
  origin: z.string().nullable().describe("Who made the record: USER, MAIL or SERVICE."),
  editable: z.boolean().nullable().describe("False for records the platform manages."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
  updatedAt: z.string().nullable().describe("Last change (ISO 8601)."),
});
export type DnsRecordOutputs = z.infer<typeof dnsRecordOutputs>;

export const DnsRecord = defineResource<DnsRecordInputs, DnsRecordOutputs>({
  token: "cloudplatform:index:DnsRecord",
  description: "One DNS record in a platform zone.",
  inputs: dnsRecordInputs,
  outputs: dnsRecordOutputs,
  // A new name moves the record: its full name follows.
  stableOutputs: (olds, news) => ["zoneName", "origin", "editable", "createdAt", ...(same(olds.name, news.name) ? ["fqdn"] : [])],
  derivedOutputs: ["name"],
  deleteBeforeReplace: true,
  importId: { format: "<zoneId>/<recordId>", note: "The resource's id in state is the record's id." },

  // ---- check ----
  check(_olds, news) {
    const res = checkWith<DnsRecordInputs>(dnsRecordInputs, news, recordRules(""));
    if (!res.inputs) return res;
    const i = res.inputs;
    // Zone-independent normalisation now; the zone suffix is dropped once the zone is known.
    if (![i.name, i.type, i.content, i.priority].some(isUnknown)) res.inputs = { ...normaliseRecord(i), name: normaliseAbsolute(i.name) };
    return res;
  },

  // ---- diff ----
  diff(_id, olds, news) {
    const want = [news.name, news.type, news.content, news.priority].some(isUnknown) ? news : normaliseRecord(news, olds.zoneName);
    return diffWith(olds, want, { replace: ["zoneId"], update: ["name", "type", "content", "ttl", "priority"], defaulted: ["ttl", "priority"] });
  },

  // ---- create ----
  async create(ctx, inputs) {
    const zoneName = await zoneNameOf(ctx, inputs.zoneId);
    const body = recordBody(inputs, zoneName);
    const r = await ctx.client.create(`/v1/dns-zones/${encodeURIComponent(inputs.zoneId)}/records`, body, {
      schema: V1DnsRecord, own: true, exists: async (made) => !!(await findRecord(ctx, inputs.zoneId, made.id)),
    });
    return { id: r.id, outs: toOutputs(r, inputs.zoneId, zoneName) };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const [fromId, recordId] = splitFirst(id);
    const zoneId = olds.zoneId || fromId;
    if (!zoneId) throw new Error(`DnsRecord '${id}': the state names no zone; import it as <zoneId>/<recordId>`);
    const r = await findRecord(ctx, zoneId, recordId);
    if (!r) return {};
    const zoneName = olds.zoneName || (await zoneNameOf(ctx, zoneId));
    const outs = toOutputs(r, zoneId, zoneName);
    return { id: recordId, props: outs, inputs: toInputs(outs) };
  },

  // ---- update ----
  async update(ctx, id, olds, news) {
    const zoneName = olds.zoneName || (await zoneNameOf(ctx, olds.zoneId || news.zoneId));
    const body = recordBody(news, zoneName);
    const r = await ctx.client.patch(`/v1/dns-records/${pathPart(splitFirst(id)[1], "record id")}`, body, { schema: V1DnsRecord });
    return { outs: toOutputs(r, olds.zoneId || news.zoneId, zoneName) };
  },

  // ---- delete ----
  async delete(ctx, id) {
    await deleteIgnoringNotFound(() => ctx.client.delete(`/v1/dns-records/${pathPart(splitFirst(id)[1], "record id")}`));
  },
});

/** Keeps the trailing dot of a full name (it says "this is absolute"), lowercased. */
const normaliseAbsolute = (name: string) => (isAbsolute(name) ? `${normaliseName(name)}.` : normaliseName(name));

// ---- finders ----
export async function zoneNameOf(ctx: Context, zoneId: string): Promise<string> {
  const zone = await findZone(ctx, zoneId);
  if (!zone) throw new Error(`zoneId: no DNS zone ${zoneId} in the workspace (is cloudplatform:workspaceId the zone's workspace?)`);
  return normaliseDomain(zone.name);
}

/** No route reads one record: the zone's list is walked. Undefined when the record or its zone is gone. */
export async function findRecord(ctx: Context, zoneId: string, id: string): Promise<V1DnsRecord | undefined> {
  const all = await findOrUndefined(() => listRecords(ctx, zoneId));
  return all?.find((r) => r.id === id);
}

export function listRecords(ctx: Context, zoneId: string): Promise<V1DnsRecord[]> {
  return ctx.client.list(`/v1/dns-zones/${encodeURIComponent(zoneId)}/records`, { item: V1DnsRecord });
}

// ---- mappers ----
/** The request body: the name relative to the zone; a full name outside it is refused here. */
export function recordBody(r: RecordSpec, zoneName: string): Record<string, unknown> {
  if (r.name.trim() !== "@" && normaliseDomain(r.name) === "") throw new Error("name: must not be empty ('@' is the zone apex)");
  if (isAbsolute(r.name)) {
    const full = normaliseName(r.name);
    if (full !== zoneName && !full.endsWith(`.${zoneName}`)) throw new Error(`name: '${r.name}' is a full name outside the zone ${zoneName}`);
  }
  const n = normaliseRecord(r, zoneName);
  const body: Record<string, unknown> = { name: n.name, type: n.type, content: n.content };
  if (n.ttl !== undefined) body.ttl = n.ttl;
  if (n.priority !== undefined) body.priority = n.priority;
  return body;
}

/** A live record in canonical form: the fields DnsRecord and DnsRecordSet both report. */
export function recordView(r: V1DnsRecord, zoneName: string) {
  const name = normaliseName(r.name, zoneName);
  const type = normaliseType(r.type);
  return {
    name,
    fqdn: name === "@" ? zoneName : `${name}.${zoneName}`,
    type,
    content: normaliseContent(type, r.content),
    ttl: r.ttl ?? null,
    priority: r.priority ?? null,
  };
}

/** The inputs a reported record implies; priority only for the types that take one. */
export function recordSpec(v: ReturnType<typeof recordView>): RecordSpec {
  const s: RecordSpec = { name: v.name, type: v.type, content: v.content };
  if (v.ttl !== null) s.ttl = v.ttl;
  if (v.priority !== null && (v.type === "MX" || v.type === "SRV")) s.priority = v.priority;
  return s;
}

export function toOutputs(r: V1DnsRecord, zoneId: string, zoneName: string): DnsRecordOutputs {
  return {
    zoneId: r.zoneId ?? zoneId,
    zoneName,
    ...recordView(r, zoneName),
    origin: r.origin ?? null,
    editable: r.editable ?? null,
    createdAt: r.createdAt ?? null,
    updatedAt: r.updatedAt ?? null,
  };
}

function toInputs(o: DnsRecordOutputs): DnsRecordInputs {
  return { zoneId: o.zoneId, ...recordSpec(o) };
}
