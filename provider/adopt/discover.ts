// Walks a workspace through the API and lists what can be adopted, parents before children, with
// the import id each resource type takes (docs/reference) and what was left out, and why.
import type { V1DnsRecord, V1DnsZone } from "../api/dns";
import type { V1CustomDomain } from "../api/domains";
import { dnsRecordApi, dnsZoneApi } from "../api/endpoints/dns";
import { customDomainApi } from "../api/endpoints/domains";
import { mailDomainApi, suppressionApi } from "../api/endpoints/mail";
import { environmentApi, projectApi } from "../api/endpoints/projects";
import { catalogueApi, serviceApi } from "../api/endpoints/services";
import { bucketApi } from "../api/endpoints/storage";
import type { V1MailDomainDetail } from "../api/mail";
import { ownEnvVars, secretFilesOf, secretInputsOf } from "../resources/serviceConfig";
import type { Context } from "../resources/framework";
import { normaliseDomain } from "../resources/dnsZone";
import { normaliseRecord, recordKey } from "../resources/dnsRecordRules";

/** The resource types adopt writes, in the order parents come before children. */
export const KINDS = [
  "Project", "Environment", "Service", "CustomDomain", "DnsZone", "MailDomain", "DnsRecordSet", "DnsRecord", "Suppression", "Bucket",
] as const;
export type Kind = (typeof KINDS)[number];
/** One env var or secret file of a service the program manages otherwise: adopted from a drift report's list. */
export type ConfigKind = "EnvVar" | "SecretFile";

/** Kinds that live in a project; the others belong to the workspace. */
export const PROJECT_KINDS: readonly Kind[] = ["Project", "Environment", "Service", "CustomDomain"];

export interface Item {
  kind: Kind | ConfigKind;
  /** Unique within one discovery: `<kind>:<platform id>`. */
  key: string;
  /** What `pulumi import` takes for this type. */
  importId: string;
  /** Platform names from the outermost container in, for the logical name. */
  parts: string[];
  /** The item this one belongs to (its Pulumi parent when both are adopted). */
  parent?: string;
  /** Inputs the import leaves out because they hold secrets (a Service's envVars, secretFiles). */
  leaveOut?: string[];
  /** A platform id, to order items whose names are the same. */
  tiebreak: string;
}

export interface Discovery {
  workspaceId: string;
  items: Item[];
  /** What was seen and not adopted, one line each, with the reason. */
  skipped: string[];
}

export interface Filters {
  /** Project names or ids; none means every project. */
  projects?: string[];
  /** Kinds to adopt; none means every kind (only the project kinds when projects are named). */
  types?: Kind[];
}

/** Lists the workspace's objects that the filters select. */
export async function discover(ctx: Context, filters: Filters = {}): Promise<Discovery> {
  const workspaceId = await ctx.workspaceId();
  const wanted = new Set<Kind>(filters.types?.length ? filters.types : filters.projects?.length ? PROJECT_KINDS : KINDS);
  const out: Discovery = { workspaceId, items: [], skipped: [] };
  const add = (item: Item) => {
    if (wanted.has(item.kind as Kind)) out.items.push(item);
  };

  // ---- projects, environments, services, custom domains ----
  const customDomains: { domain: V1CustomDomain; key: string; parts: string[] }[] = [];
  const projectKinds = PROJECT_KINDS.some((k) => wanted.has(k)) || wanted.has("DnsRecordSet");
  const projects = projectKinds ? await projectApi.list(ctx.client, workspaceId) : [];
  const picked = projects.filter((p) => !filters.projects?.length || filters.projects.includes(p.name) || filters.projects.includes(p.id));
  for (const name of filters.projects ?? []) {
    if (!projects.some((p) => p.name === name || p.id === name)) throw new Error(`--project ${name}: no project of that name or id in workspace ${workspaceId}`);
  }
  for (const project of picked) {
    const pKey = `Project:${project.id}`;
    add({ kind: "Project", key: pKey, importId: project.id, parts: [project.name], tiebreak: project.id });
    const envs = await environmentApi.list(ctx.client, project.id);
    for (const env of envs) {
      if (env.isPreview) {
        out.skipped.push(`environment ${project.name}/${env.name}: a pull-request preview, which the platform makes and removes`);
        continue;
      }
      const eKey = `Environment:${env.id}`;
      add({ kind: "Environment", key: eKey, importId: env.id, parts: [project.name, env.name], parent: pKey, tiebreak: env.id });
      const services = await serviceApi.listIn(ctx.client, env.id);
      for (const svc of services) {
        const where = `${project.name}/${env.name}/${svc.name}`;
        if (svc.type === "STATIC" && !svc.source.type) {
          out.skipped.push(`static site ${where}: its content cannot be read back; declare it as a StaticSite with its path and import it by id ${svc.id}`);
          continue;
        }
        const sKey = `Service:${svc.id}`;
        if (wanted.has("Service")) {
          add({ kind: "Service", key: sKey, importId: svc.id, parts: [project.name, env.name, svc.name], parent: eKey, leaveOut: await secretInputs(ctx, svc.id), tiebreak: svc.id });
        }
        const domains = wanted.has("CustomDomain") || wanted.has("DnsRecordSet")
          ? await customDomainApi.list(ctx.client, svc.id)
          : [];
        for (const d of domains) {
          const key = `CustomDomain:${d.id}`;
          add({ kind: "CustomDomain", key, importId: `${svc.id}/${d.id}`, parts: [d.domain], parent: sKey, tiebreak: d.id });
          customDomains.push({ domain: d, key, parts: [d.domain] });
        }
      }
    }
  }

  // ---- DNS zones, mail domains, their records ----
  const dnsKinds = wanted.has("DnsZone") || wanted.has("DnsRecord") || wanted.has("DnsRecordSet");
  const zones = dnsKinds ? await dnsZoneApi.list(ctx.client, workspaceId) : [];
  const mail: V1MailDomainDetail[] = [];
  if (wanted.has("MailDomain") || wanted.has("DnsRecordSet")) {
    for (const d of await mailDomainApi.list(ctx.client, workspaceId)) {
      mail.push(await mailDomainApi.get(ctx.client, workspaceId, d.id));
    }
  }
  for (const z of zones) add({ kind: "DnsZone", key: `DnsZone:${z.id}`, importId: z.id, parts: [z.name], tiebreak: z.id });
  for (const m of mail) add({ kind: "MailDomain", key: `MailDomain:${m.domain.id}`, importId: `${workspaceId}/${m.domain.id}`, parts: [m.domain.name], tiebreak: m.domain.id });

  const records = new Map<string, V1DnsRecord[]>();
  for (const z of zones) records.set(z.id, await dnsRecordApi.list(ctx.client, z.id));
  const claimed = new Set<string>();
  /** The zone records matching `wanted` (full names), as one record set of `owner`. */
  const recordSet = (owner: string, parts: string[], wantedRecords: { fqdn: string; type: string; content: string }[]) => {
    const byZone = new Map<string, string[]>();
    for (const w of wantedRecords) {
      const zone = zoneOf(zones, w.fqdn);
      if (!zone) continue;
      const key = recordKey(normaliseRecord({ name: w.fqdn, type: w.type, content: w.content }, zone.name));
      const hit = (records.get(zone.id) ?? []).find((r) => r.editable !== false && !claimed.has(r.id) && recordKey(normaliseRecord(spec(r), zone.name)) === key);
      if (!hit) continue;
      claimed.add(hit.id);
      byZone.set(zone.id, [...(byZone.get(zone.id) ?? []), hit.id]);
    }
    for (const [zoneId, ids] of byZone) {
      add({ kind: "DnsRecordSet", key: `DnsRecordSet:${zoneId}:${owner}`, importId: `${zoneId}/${ids.join(",")}`, parts: [...parts, "records"], parent: `DnsZone:${zoneId}`, tiebreak: ids[0] });
    }
  };
  for (const m of mail) recordSet(m.domain.id, [m.domain.name], m.records.map((r) => ({ fqdn: r.fqdn, type: r.type, content: r.value })));
  for (const c of customDomains) {
    recordSet(c.domain.id, c.parts, c.domain.dnsTarget.records.map((r) => ({ fqdn: r.fqdn ?? fullName(r.name, c.domain.domain), type: r.type, content: r.content })));
  }
  for (const z of zones) {
    for (const r of records.get(z.id) ?? []) {
      if (claimed.has(r.id)) continue;
      if (r.editable === false) {
        if (wanted.has("DnsRecord")) out.skipped.push(`record ${r.type} ${r.name} in ${z.name}: made by the platform (origin ${r.origin ?? "unknown"}), not editable`);
        continue;
      }
      const label = normaliseRecord(spec(r), z.name).name;
      add({ kind: "DnsRecord", key: `DnsRecord:${r.id}`, importId: `${z.id}/${r.id}`, parts: [z.name, label === "@" ? "apex" : label, r.type.toLowerCase()], parent: `DnsZone:${z.id}`, tiebreak: r.id });
    }
  }

  // ---- suppressions, buckets ----
  if (wanted.has("Suppression")) {
    for await (const s of suppressionApi.each(ctx.client, workspaceId)) {
      add({ kind: "Suppression", key: `Suppression:${s.address}`, importId: `${workspaceId}/${s.address}`, parts: [s.address.split("@")[0], "suppressed"], tiebreak: s.address });
    }
  }
  if (wanted.has("Bucket")) {
    const regions = await catalogueApi.regions(ctx.client);
    const seen = new Set<string>();
    for (const region of regions.map((r) => r.region)) {
      for (const b of await bucketApi.list(ctx.client, workspaceId, region)) {
        if (seen.has(b.name)) continue;
        seen.add(b.name);
        add({ kind: "Bucket", key: `Bucket:${b.name}`, importId: `${workspaceId}/${b.region ?? region}/${b.name}`, parts: [b.name], tiebreak: b.name });
      }
    }
  }

  // Parents that were not adopted are not parents.
  const keys = new Set(out.items.map((i) => i.key));
  for (const i of out.items) if (i.parent && !keys.has(i.parent)) delete i.parent;
  out.items.sort((a, b) => KINDS.indexOf(a.kind as Kind) - KINDS.indexOf(b.kind as Kind));
  return out;
}

/** The Service inputs that hold secrets the API shows: secret variables and secret files. */
async function secretInputs(ctx: Context, serviceId: string): Promise<string[] | undefined> {
  const out = secretInputsOf(await ownEnvVars(ctx.client, serviceId), await secretFilesOf(ctx.client, serviceId));
  return out.length ? out : undefined;
}

/** The adopted zone a full name lies in: the longest zone name it ends with. */
function zoneOf(zones: V1DnsZone[], fqdn: string): V1DnsZone | undefined {
  const name = normaliseDomain(fqdn);
  return zones
    .filter((z) => name === normaliseDomain(z.name) || name.endsWith(`.${normaliseDomain(z.name)}`))
    .sort((a, b) => b.name.length - a.name.length)[0];
}

const spec = (r: V1DnsRecord) => ({ name: r.name, type: r.type, content: r.content, priority: r.priority ?? undefined });

const fullName = (name: string, domain: string) => (name === "@" ? domain : name.includes(".") ? name : `${name}.${domain}`);
