// The outputs the platform fills in when an object is made, for the unit-test mocks: ids, URLs,
// endpoints, full names and a mail domain's records, in the forms the emulator gives them (a test
// holds these constants to the emulator's). Every other output the provider declares is null.
import { createHash } from "node:crypto";
import { fqdnOf } from "../provider/resources/dnsRecordRules";
import { normaliseDomain } from "../provider/resources/dnsZone";
import { resources } from "../provider/resources";

export const PLATFORM_DOMAIN = "cloudplatform.app";
export const PLATFORM_IPV4 = "203.0.113.10";
export const DEFAULT_REGION = "af-west-1";
export const SPF_VALUE = "v=spf1 include:_spf.mail.cloudplatform.test ~all";
export const DMARC_VALUE = "v=DMARC1; p=none;";
export const mxHost = (region: string) => `inbound-smtp.${region}.mail.cloudplatform.test`;
export const storageEndpoint = (region: string) => `https://storage.${region}.${PLATFORM_DOMAIN}`;
/** The time every mocked object was made at: outputs stay the same from run to run. */
export const CREATED_AT = "2026-01-01T00:00:00.000Z";

/** A uuid drawn from a seed: the same resource gets the same id in every run. */
export function uuidFrom(seed: string): string {
  const h = createHash("sha256").update(seed).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "service";
const isApex = (domain: string) => normaliseDomain(domain).split(".").length <= 2;

/** What the mocks know of the objects made so far, by id: functions and later resources read it. */
export interface Made {
  kind: string;
  id: string;
  outputs: Record<string, unknown>;
}

/** The objects made so far. */
export interface World {
  find(id: unknown): Made | undefined;
  all(kind: string): Made[];
}

/** The outputs of a new object of `kind`, from its checked inputs. */
export function outputsOf(kind: string, id: string, inputs: Record<string, any>, w: World): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(resources[kind].outputs.shape)) out[key] = null;
  Object.assign(out, withoutHidden(inputs), { createdAt: CREATED_AT });
  const fill = FILL[kind];
  if (fill) Object.assign(out, fill(id, inputs, w));
  return out;
}

function withoutHidden(inputs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(inputs).filter(([k]) => !k.startsWith("__")));
}

const FILL: Record<string, (id: string, i: Record<string, any>, w: World) => Record<string, unknown>> = {
  Project: (_, i) => ({ region: i.region ?? DEFAULT_REGION, workspaceId: i.workspaceId ?? uuidFrom("workspace"), paused: false, updatedAt: CREATED_AT }),
  Environment: (_, i) => ({ kind: ["DEV", "UAT", "PROD"].find((k) => k === String(i.name).toUpperCase()) ?? null, isPreview: false, paused: false, updatedAt: CREATED_AT }),
  Service(id, i) {
    const web = i.type === "WEB" || i.type === "STATIC";
    const db = !web && i.type !== "CRON";
    const host = `${i.subdomain ?? `${slug(i.name)}-${id.slice(0, 6)}`}.${PLATFORM_DOMAIN}`;
    return {
      region: i.region ?? DEFAULT_REGION, tier: i.tier ?? "STARTER", status: "ACTIVE", health: "HEALTHY", suspension: "NONE",
      url: web ? `https://${host}` : null, latestDeployId: uuidFrom(`${id}/deploy`), latestDeployStatus: "RUNNING", lastDeployedAt: CREATED_AT,
      pendingRedeploy: false,
      connection: db ? {
        scheme: String(i.type).toLowerCase(), host: `${slug(i.name)}-${id.slice(0, 6)}.internal`, port: 5432, database: i.dbName ?? slug(i.name),
        username: i.dbUser ?? "app", password: i.dbPassword ?? "mock-password", url: null, externalUrl: null,
      } : null,
    };
  },
  EnvVar: () => ({ pendingRedeploy: false }),
  SecretFile: () => ({ pendingRedeploy: false }),
  Bucket: (_, i) => {
    const region = i.region ?? DEFAULT_REGION;
    return { region, workspaceId: i.workspaceId ?? uuidFrom("workspace"), endpoint: storageEndpoint(region), forceDestroy: i.forceDestroy ?? false,
      visibility: i.visibility ?? "PRIVATE", publicBaseUrl: i.visibility === "PUBLIC_READ" ? `${storageEndpoint(region)}/${i.name}` : null };
  },
  DnsZone: (id, i) => ({
    workspaceId: i.workspaceId ?? uuidFrom("workspace"), published: false, verificationMethod: "TXT", updatedAt: CREATED_AT,
    verificationRecord: { name: `_cloudplatform-verify.${normaliseDomain(i.name)}`, type: "TXT", value: `cloudplatform-verify=${id}` },
  }),
  DnsZoneVerification: (_, i, w) => ({ name: w.find(i.zoneId)?.outputs.name ?? null, published: true, verificationMethod: "TXT", verifiedAt: CREATED_AT }),
  DnsRecord(_, i, w) {
    const zoneName = w.find(i.zoneId)?.outputs.name;
    return { zoneName: zoneName ?? null, fqdn: typeof zoneName === "string" ? fqdnOf(i.name, zoneName) : null, ttl: i.ttl ?? 3600, origin: "USER", editable: true, updatedAt: CREATED_AT };
  },
  DnsRecordSet: (_, i, w) => ({ zoneName: w.find(i.zoneId)?.outputs.name ?? null }),
  MailDomain: (id, i, w) => mailDomain(id, i, w),
  MailDomainVerification(_, i, w) {
    const d = w.find(i.domainId);
    return { ...(d ? pick(d.outputs, ["name", "records", "dailyQuota"]) : {}), status: "VERIFIED", propagating: false, failingRecords: [], verifiedAt: CREATED_AT, lastCheckedAt: CREATED_AT };
  },
  CustomDomain(_, i, w) {
    const svc = w.find(i.serviceId);
    const apex = isApex(i.domain);
    const cname = typeof svc?.outputs.url === "string" ? svc.outputs.url.replace(/^https:\/\//, "") : null;
    const record = apex ? { type: "A", content: PLATFORM_IPV4 } : { type: "CNAME", content: cname ?? "" };
    return {
      status: "PENDING",
      dnsTarget: { cname, aRecord: apex ? PLATFORM_IPV4 : null, isApex: apex, conflicts: [],
        records: [{ id: null, zoneId: null, name: normaliseDomain(i.domain), fqdn: normaliseDomain(i.domain), ttl: null, priority: null, ...record }] },
    };
  },
  CustomDomainVerification(_, i, w) {
    const d = w.find(i.domainId);
    return { ...(d ? pick(d.outputs, ["domain", "serviceId", "dnsTarget"]) : {}), status: "ACTIVE", verifiedAt: CREATED_AT, lastCheck: "ok" };
  },
  StaticSite: (id, i) => ({ serviceId: uuidFrom(`${id}/service`), deployId: uuidFrom(`${id}/deploy`), url: `https://${slug(i.name)}-${id.slice(0, 6)}.${PLATFORM_DOMAIN}` }),
  Suppression: () => ({ reason: "MANUAL" }),
};

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k] ?? null]));

/** DKIM, SPF, MX (never for an apex), DMARC, as the platform lists them; in the domain's zone when the test made one. */
function mailDomain(id: string, i: Record<string, any>, w: World): Record<string, unknown> {
  const name = normaliseDomain(i.name);
  const region = i.region ?? DEFAULT_REGION;
  const zones = w.all("DnsZone").map((z) => ({ id: z.id, name: normaliseDomain(String(z.outputs.name)) }))
    .filter((z) => name === z.name || name.endsWith(`.${z.name}`)).sort((a, b) => b.name.length - a.name.length);
  const zone = zones[0]?.name ?? name.split(".").slice(-2).join(".");
  const dkimPublicKey = Buffer.from(createHash("sha256").update(`${id}/dkim`).digest()).toString("base64");
  const rec = (kind: string, type: string, host: string, value: string, priority: number | null, required: boolean) => {
    const fqdn = host === "@" ? name : `${host}.${name}`;
    const zoneHost = fqdn === zone ? "@" : fqdn.endsWith(`.${zone}`) ? fqdn.slice(0, -zone.length - 1) : null;
    return { name: kind, type, host, fqdn, zoneHost, value, priority, required, verified: null, problem: null };
  };
  const records = [rec("DKIM", "TXT", "cp1._domainkey", `v=DKIM1; k=rsa; p=${dkimPublicKey}`, null, true), rec("SPF", "TXT", "@", SPF_VALUE, null, true)];
  if (!isApex(name)) records.push(rec("MX", "MX", "@", mxHost(region), 10, true));
  records.push(rec("DMARC", "TXT", "_dmarc", DMARC_VALUE, null, false));
  return {
    name, region, workspaceId: i.workspaceId ?? uuidFrom("workspace"), status: "PENDING", records, dkimPublicKey, dailyQuota: null,
    zone: { name: zone, dnsZoneId: zones[0]?.id ?? null, hostedOnPlatform: zones.length > 0 },
  };
}

