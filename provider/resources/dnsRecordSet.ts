// DnsRecordSet: a group of records in one platform zone, managed together. It owns exactly the
// records it created (their ids are in its state) and never touches the zone's other records.
// Desired and live records are matched by name + type + normalised content, so reordering the
// list changes nothing and a changed value is edited in place.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { V1DnsRecord } from "../api/dns";
import { type DnsRecordBody, dnsRecordApi } from "../api/endpoints/dns";
import { ConflictError } from "../client";
import { findRecord, listRecords, recordBody, recordFields, recordOutputFields, recordSpec, recordView, zoneNameOf } from "./dnsRecord";
import { normaliseRecord, recordFailures, recordKey, type RecordSpec } from "./dnsRecordRules";
import {
  type CheckFailure, checkWith, type Context, defineResource, type PropertyChange, deleteIgnoringNotFound, findOrUndefined, isImport, isUnknown,
  ResourceInitError, splitFirst, statePart,
} from "./framework";
import { id } from "./rules";

// ---- schemas ----
const recordInput = z.object(recordFields);
export const dnsRecordSetInputs = z.object({
  zoneId: id("The zone the records belong to. Changing it replaces the set."),
  records: z.array(recordInput, { error: "must be a list of records" }).describe("The records: each name, type, content and optionally ttl and priority. Order does not matter."),
});
export type DnsRecordSetInputs = z.infer<typeof dnsRecordSetInputs>;

const recordOutput = z.object({ id: z.string().describe("The record's id."), ...recordOutputFields });
type ManagedRecord = z.infer<typeof recordOutput>;

export const dnsRecordSetOutputs = z.object({
  zoneId: z.string().describe("The zone the records belong to."),
  zoneName: z.string().describe("The zone's domain name."),
  records: z.array(recordOutput).describe("The records the set manages, in the order they were declared."),
});
export type DnsRecordSetOutputs = z.infer<typeof dnsRecordSetOutputs>;

export const DnsRecordSet = defineResource<DnsRecordSetInputs, DnsRecordSetOutputs>({
  token: "cloudplatform:index:DnsRecordSet",
  description: "A set of records in one zone, managed together. Records of the zone that the set did not create are never touched.",
  inputs: dnsRecordSetInputs,
  outputs: dnsRecordSetOutputs,
  stableOutputs: ["zoneName"],
  derivedOutputs: ["records"],
  deleteBeforeReplace: true,
  importId: {
    format: "<zoneId>/<recordId>,<recordId>,...",
    note: "The set takes over exactly the records named; the zone's other records stay outside it. The imported set keeps this id.",
  },
  inputsOf,

  // ---- check ----
  check(_olds, news) {
    const res = checkWith<DnsRecordSetInputs>(dnsRecordSetInputs, news, (i) => {
      const failures: CheckFailure[] = i.records.flatMap((r, n) => recordFailures(r, `records[${n}].`));
      const seen = new Map<string, number>();
      const cnames = new Map<string, number>();
      const normal = i.records.map((r) => normaliseRecord(r));
      normal.forEach((r, n) => {
        const key = recordKey(r);
        if (seen.has(key)) failures.push({ property: `records[${n}]`, reason: `records[${n}]: the same record as records[${seen.get(key)}] (${i.records[n].type} ${i.records[n].name})` });
        else seen.set(key, n);
        if (r.type === "CNAME" && !cnames.has(r.name)) cnames.set(r.name, n);
      });
      // A CNAME is alone at its name: the zone refuses any other record beside it.
      normal.forEach((r, n) => {
        const at = cnames.get(r.name);
        if (at !== undefined && at !== n) {
          failures.push({ property: `records[${n}]`, reason: `records[${n}]: records[${at}] is a CNAME at ${r.name}, which cannot share its name with another record` });
        }
      });
      return failures;
    });
    return res;
  },

  // ---- diff ----
  diff(_id, olds, news) {
    if (isUnknown(news.zoneId) || news.zoneId !== olds.zoneId) return { changes: true, replaces: ["zoneId"] };
    if (isUnknown(news.records)) return { changes: true, replaces: [] };
    const plan = matchRecords(desiredOf(news.records, olds.zoneName), olds.records ?? []);
    const changes = plan.create.length + plan.edit.length + plan.remove.length > 0 || plan.keep.some(([d, c]) => !sameExtras(d, c));
    const detailedDiff: Record<string, PropertyChange> = changes ? { records: { kind: "update", replace: false } } : {};
    return { changes, replaces: [], detailedDiff };
  },

  // ---- create ----
  async create(ctx, inputs) {
    const zoneName = await zoneNameOf(ctx, inputs.zoneId);
    const id = `${inputs.zoneId}/records-${randomBytes(4).toString("hex")}`;
    const done: ManagedRecord[] = [];
    try {
      for (const r of inputs.records) done.push(await createOne(ctx, inputs.zoneId, zoneName, r));
    } catch (err) {
      if (!done.length) throw asError(err);
      throw initError(err, id, { zoneId: inputs.zoneId, zoneName, records: done });
    }
    return { id, outs: { zoneId: inputs.zoneId, zoneName, records: done } };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    if (isImport(olds)) return adopt(ctx, id);
    // Both id forms start with the zone: a state without zoneId still names it.
    const zoneId = olds.zoneId || statePart(splitFirst(id)[0], "zoneId");
    const live = await findOrUndefined(() => listRecords(ctx, zoneId));
    if (!live) return {};
    const zoneName = olds.zoneName || (await zoneNameOf(ctx, zoneId));
    const byId = new Map(live.map((r) => [r.id, r]));
    const records = (olds.records ?? []).flatMap((m) => {
      const r = byId.get(m.id);
      return r ? [toManaged(r, zoneName)] : [];
    });
    const outs = { zoneId, zoneName, records };
    return { id, props: outs, inputs: inputsOf(outs) };
  },

  // ---- update ----
  async update(ctx, id, olds, news) {
    const zoneId = olds.zoneId || statePart(splitFirst(id)[0], "zoneId");
    const zoneName = olds.zoneName || (await zoneNameOf(ctx, zoneId));
    // Work from the live records: refresh may not have run since something changed.
    const live = new Map((await listRecords(ctx, zoneId)).map((r) => [r.id, r]));
    const current = (olds.records ?? []).flatMap((m) => (live.has(m.id) ? [toManaged(live.get(m.id)!, zoneName)] : []));
    const desired = desiredOf(news.records, zoneName);
    const plan = matchRecords(desired, current);
    const result = new Map<number, ManagedRecord>();
    const kept = new Map(current.map((c) => [c.id, c]));
    try {
      for (const c of plan.remove) {
        await deleteIgnoringNotFound(() => dnsRecordApi.delete(ctx.client, c.id));
        kept.delete(c.id);
      }
      for (const [d, c] of [...plan.keep, ...plan.edit]) {
        const changed = !sameExtras(d, c) || recordKey(d) !== recordKey(c);
        const rec = changed ? toManaged(await dnsRecordApi.patch(ctx.client, c.id, body(d, c, zoneName)), zoneName) : c;
        result.set(d.index, rec);
        kept.delete(c.id);
      }
      for (const d of plan.create) result.set(d.index, await createOne(ctx, zoneId, zoneName, news.records[d.index]));
    } catch (err) {
      const partial = [...[...result.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r), ...kept.values()];
      throw initError(err, id, { zoneId, zoneName, records: partial });
    }
    const records = [...result.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
    return { outs: { zoneId, zoneName, records } };
  },

  // ---- delete ----
  async delete(ctx, _id, olds) {
    for (const r of olds.records ?? []) {
      await deleteIgnoringNotFound(() => dnsRecordApi.delete(ctx.client, r.id));
    }
  },
});

// ---- matching ----
type Desired = RecordSpec & { index: number };

function desiredOf(records: RecordSpec[], zoneName: string): Desired[] {
  return records.map((r, index) => ({ ...normaliseRecord(r, zoneName), index }));
}

/** ttl and priority are compared only when the program sets them. */
const sameExtras = (d: RecordSpec, c: ManagedRecord) =>
  (d.ttl === undefined || d.ttl === c.ttl) && (d.priority === undefined || d.priority === c.priority);

/**
 * Pairs desired records with managed ones: first by name + type + content (kept as they are, or
 * with a new ttl/priority), then by name + type (content edited in place); the rest are created
 * or removed.
 */
export function matchRecords(desired: Desired[], current: ManagedRecord[]) {
  const free = new Set(current);
  const keep: [Desired, ManagedRecord][] = [];
  const edit: [Desired, ManagedRecord][] = [];
  const rest: Desired[] = [];
  for (const d of desired) {
    const c = [...free].find((x) => recordKey(x) === recordKey(d));
    if (c) {
      keep.push([d, c]);
      free.delete(c);
    } else rest.push(d);
  }
  const create: Desired[] = [];
  for (const d of rest) {
    const c = [...free].find((x) => x.name === d.name && x.type === d.type);
    if (c) {
      edit.push([d, c]);
      free.delete(c);
    } else create.push(d);
  }
  return { keep, edit, create, remove: [...free] };
}

// ---- import ----
/**
 * An import names the records the set takes over: `<zoneId>/<recordId>,<recordId>…`. A set's own
 * id (`<zoneId>/records-<hex>`) does not say which records it owns, so it cannot be imported.
 */
async function adopt(ctx: Context, id: string) {
  const slash = id.indexOf("/");
  const zoneId = id.slice(0, slash);
  const ids = [...new Set(id.slice(slash + 1).split(",").map((s) => s.trim()).filter(Boolean))];
  if (slash <= 0 || !ids.length || /^records-[0-9a-f]{8}$/.test(ids[0])) {
    throw new Error(`DnsRecordSet import id '${id}': name the zone and the records the set takes over, as <zoneId>/<recordId>,<recordId>...`);
  }
  const zoneName = await zoneNameOf(ctx, zoneId);
  const live = new Map((await listRecords(ctx, zoneId)).map((r) => [r.id, r]));
  const missing = ids.filter((r) => !live.has(r));
  if (missing.length) throw new Error(`DnsRecordSet import id '${id}': zone ${zoneName} has no record ${missing.join(", ")}`);
  const records = ids.map((r) => toManaged(live.get(r)!, zoneName));
  return { id, props: { zoneId, zoneName, records }, inputs: { zoneId, records: records.map(recordSpec) } };
}

// ---- calls ----
async function createOne(ctx: Context, zoneId: string, zoneName: string, r: RecordSpec): Promise<ManagedRecord> {
  try {
    const created = await dnsRecordApi.create(ctx.client, zoneId, recordBody(r, zoneName), {
      exists: async (made) => !!(await findRecord(ctx, zoneId, made.id, { fresh: true })),
    });
    return toManaged(created, zoneName);
  } catch (err) {
    if (err instanceof ConflictError) {
      throw new Error(`${r.type} ${r.name} in zone ${zoneName}: ${err.messages}. A record the set did not create is never adopted or changed; remove it from the zone or from the set.`);
    }
    throw err;
  }
}

function body(d: RecordSpec, c: ManagedRecord, zoneName: string): DnsRecordBody {
  const b = recordBody(d, zoneName);
  if (b.ttl === undefined && c.ttl !== null) b.ttl = c.ttl;
  return b;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function initError(err: unknown, id: string, outs: DnsRecordSetOutputs): ResourceInitError {
  return new ResourceInitError(asError(err).message, id, outs);
}

// ---- mappers ----
const toManaged = (r: V1DnsRecord, zoneName: string): ManagedRecord => ({ id: r.id, ...recordView(r, zoneName) });

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: DnsRecordSetOutputs): DnsRecordSetInputs {
  return ({ zoneId: o.zoneId, records: o.records.map(recordSpec) });
}
