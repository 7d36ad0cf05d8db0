// DnsRecord: one record of a platform zone (infrastructure routes §2.1, §4.1). Names and values are
// normalised before they are compared (dnsRecordRules.ts), so the way a program spells a record
// never shows as drift.
import { z } from "zod";
import { type DnsRecordBody, dnsRecordApi } from "../api/endpoints/dns";
import type { V1DnsRecord } from "../api/dns";
import {
  isAbsolute, normaliseContent, normaliseName, normaliseRecord, normaliseType, RECORD_TYPES, type RecordSpec, recordRules, TTL_RANGE,
} from "./dnsRecordRules";
import { findZone, normaliseDomain } from "./dnsZone";
import {
  checkWith, type Context, defineResource, deleteIgnoringNotFound, diffWith, findShared, isUnknown, same,
  splitFirst, statePart,
} from "./framework";
import { id } from "./rules";

// ---- schemas ----
export const recordFields = {
  name: z.string({ error: "must be a string: '@' for the apex, a label relative to the zone, or a full name" }).min(1, "must not be empty")
    .describe("'@' for the zone apex, or a name relative to the zone ('www', 'sel._domainkey.mail'). A full name inside the zone (with or without the trailing dot) is accepted and compared as the relative one; case is ignored."),
  type: z.string({ error: "must be a string" }).describe(`Record type: ${RECORD_TYPES.join(", ")} (case is ignored).`),
  content: z.string({ error: "must be a string" }).min(1, "must not be empty").max(4096, "must be at most 4096 characters")
    .describe("The record's value. TXT values may be given quoted or split into quoted strings; host names may carry a trailing dot."),
  ttl: z.number({ error: "must be a number of seconds" }).int("must be an integer")
    .min(TTL_RANGE.min, `must be at least ${TTL_RANGE.min} seconds`).max(TTL_RANGE.max, `must be at most ${TTL_RANGE.max} seconds`)
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
  inputsOf: (o) => toInputs(o),

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
    const r = await dnsRecordApi.create(ctx.client, inputs.zoneId, body, {
      own: true, exists: async (made) => !!(await findRecord(ctx, inputs.zoneId, made.id, { fresh: true })),
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
    const r = await dnsRecordApi.patch(ctx.client, statePart(splitFirst(id)[1], "record id"), body);
    return { outs: toOutputs(r, olds.zoneId || news.zoneId, zoneName) };
  },

  // ---- delete ----
  async delete(ctx, id) {
    await deleteIgnoringNotFound(() => dnsRecordApi.delete(ctx.client, statePart(splitFirst(id)[1], "record id")));
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

/** No route reads one record: the zone's list is searched, in a walk reads share. Undefined when the record or its zone is gone. */
export function findRecord(ctx: Context, zoneId: string, id: string, opts: { fresh?: boolean } = {}): Promise<V1DnsRecord | undefined> {
  return findShared(ctx, `dns-records\n${zoneId}`, () => listRecords(ctx, zoneId), (r) => r.id === id, opts);
}

export function listRecords(ctx: Context, zoneId: string): Promise<V1DnsRecord[]> {
  return dnsRecordApi.list(ctx.client, zoneId);
}

// ---- mappers ----
/** The request body: the name relative to the zone; a full name outside it is refused here. */
export function recordBody(r: RecordSpec, zoneName: string): DnsRecordBody {
  if (r.name.trim() !== "@" && normaliseDomain(r.name) === "") throw new Error("name: must not be empty ('@' is the zone apex)");
  if (isAbsolute(r.name)) {
    const full = normaliseName(r.name);
    if (full !== zoneName && !full.endsWith(`.${zoneName}`)) throw new Error(`name: '${r.name}' is a full name outside the zone ${zoneName}`);
  }
  const n = normaliseRecord(r, zoneName);
  const body: DnsRecordBody = { name: n.name, type: n.type, content: n.content };
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
