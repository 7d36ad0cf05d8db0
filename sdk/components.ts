// What the two components are made of, written once for both ways of serving them: the dynamic
// SDK's classes (sdk/verifiedMailDomain.ts, sdk/verifiedCustomDomain.ts) build their children
// from the dynamic resources, the plugin's Construct (provider/plugin/construct.ts) from the native
// SDK's. Which records go into the zone, by which name, and which options reach which child, is here.
import * as pulumi from "@pulumi/pulumi";

type Ctor<A, R> = new (name: string, args: A, opts?: pulumi.CustomResourceOptions) => R;

/** A record of MailDomain.records, as either SDK types it. */
export interface MailRecordLike {
  type: string;
  fqdn: string;
  zoneHost?: string | null;
  value: string;
  priority?: number | null;
  required: boolean;
}

/** A record of CustomDomain.dnsTarget, as either SDK types it. */
export interface TargetRecordLike {
  zoneId?: string | null;
  fqdn: string;
  type: string;
  content: string;
}
export interface DnsTargetLike {
  records: TargetRecordLike[];
  conflicts: TargetRecordLike[];
}

export interface RecordInput {
  name: string;
  type: string;
  content: string;
  priority?: number;
}

/** The mail records to publish in the zone: by zoneHost when the domain's zone is this zone, else by full name. */
export function mailZoneRecords(records: MailRecordLike[], domainZoneId: string | null | undefined, zoneId: string, publishOptional = true): RecordInput[] {
  return records
    .filter((r) => r.required || publishOptional)
    .map((r) => {
      const rec: RecordInput = { name: domainZoneId === zoneId && r.zoneHost ? r.zoneHost : `${r.fqdn}.`, type: r.type, content: r.value };
      if (r.priority !== null && r.priority !== undefined) rec.priority = r.priority;
      return rec;
    });
}

/**
 * A custom domain's records to publish, by full name. A CNAME whose name a conflicting record of
 * this zone holds is left out: the zone refuses a CNAME beside other records, and the records of
 * others are never changed, so the verification names the conflict to remove instead. (Once the
 * CNAME is there, the zone refuses any other record at its name, so a published CNAME is never held back.)
 */
export function customDomainZoneRecords(target: DnsTargetLike | undefined, zoneId: string): RecordInput[] {
  // State without a DNS target (an object whose create was cut short): publishing nothing would
  // remove the records; refresh reads the target back.
  if (!target) throw new Error("the custom domain's state holds no dnsTarget; run `pulumi refresh`, then `pulumi up`");
  const blocked = new Set(target.conflicts.filter((c) => c.zoneId === zoneId).map((c) => c.fqdn));
  return target.records
    .filter((r) => r.type !== "CNAME" || !blocked.has(r.fqdn))
    .map((r) => ({ name: `${r.fqdn}.`, type: r.type, content: r.content }));
}

type RecordSetArgs = { zoneId: pulumi.Input<string>; records: pulumi.Input<RecordInput[]> };

export interface VerifiedMailDomainArgs {
  /** The sending domain, e.g. mail.example.com. It must lie inside the zone. */
  name: pulumi.Input<string>;
  /** The platform zone that holds the domain (a DnsZone's id). */
  zoneId: pulumi.Input<string>;
  /** Region the domain sends from. Defaults to the workspace's. */
  region?: pulumi.Input<string>;
  /** Workspace of the domain. Defaults to cloudplatform:workspaceId, or the only workspace the key reaches. */
  workspaceId?: pulumi.Input<string>;
  /** How long to wait for verification, e.g. "90s" or "15m". Default 15m. */
  timeout?: pulumi.Input<string>;
  /** Publish the recommended (not required) records too, such as DMARC. Default true. */
  publishOptional?: pulumi.Input<boolean>;
}

/** The resource classes a VerifiedMailDomain is built from. */
export interface MailKit<D, S, V> {
  MailDomain: Ctor<{ name: pulumi.Input<string>; region?: pulumi.Input<string>; workspaceId?: pulumi.Input<string> }, D>;
  DnsRecordSet: Ctor<RecordSetArgs, S>;
  MailDomainVerification: Ctor<{ domainId: pulumi.Input<string>; timeout?: pulumi.Input<string>; workspaceId?: pulumi.Input<string> }, V>;
}

type MailDomainLike = pulumi.CustomResource & {
  records: pulumi.Output<MailRecordLike[]>;
  zone: pulumi.Output<{ dnsZoneId?: string | null } | null | undefined>;
  workspaceId: pulumi.Output<string>;
};

/** Adds a VerifiedMailDomain's children under `parent`: the domain, its records in the zone, and the verification after them. */
export function buildVerifiedMailDomain<D extends MailDomainLike, S extends pulumi.CustomResource, V extends pulumi.CustomResource & { status: pulumi.Output<string> }>(
  parent: pulumi.ComponentResource,
  name: string,
  args: VerifiedMailDomainArgs,
  kit: MailKit<D, S, V>,
) {
  const mailDomain = new kit.MailDomain(name, { name: args.name, region: args.region, workspaceId: args.workspaceId }, { parent });
  const recordSet = new kit.DnsRecordSet(
    `${name}-records`,
    {
      zoneId: args.zoneId,
      records: pulumi
        .all([mailDomain.records, mailDomain.zone, args.zoneId, args.publishOptional])
        .apply(([records, zone, zoneId, optional]) => mailZoneRecords(records, zone?.dnsZoneId, zoneId, optional ?? true)),
    },
    { parent },
  );
  const verification = new kit.MailDomainVerification(
    name,
    { domainId: mailDomain.id, timeout: args.timeout, workspaceId: mailDomain.workspaceId },
    { parent, dependsOn: [recordSet] },
  );
  return { mailDomain, recordSet, verification, outputs: { domainId: mailDomain.id, status: verification.status, records: mailDomain.records as D["records"] } };
}

export interface VerifiedCustomDomainArgs {
  /** The WEB service the domain serves. */
  serviceId: pulumi.Input<string>;
  /** The domain, e.g. www.example.com or example.com. It must lie inside the zone. */
  domain: pulumi.Input<string>;
  /** The platform zone that holds the domain (a DnsZone's id). */
  zoneId: pulumi.Input<string>;
  /** How long to wait for the domain to become ACTIVE, e.g. "90s" or "15m". Default 15m. */
  timeout?: pulumi.Input<string>;
}

/** The resource classes a VerifiedCustomDomain is built from. */
export interface CustomDomainKit<D, S, V> {
  CustomDomain: Ctor<{ serviceId: pulumi.Input<string>; domain: pulumi.Input<string> }, D>;
  DnsRecordSet: Ctor<RecordSetArgs, S>;
  CustomDomainVerification: Ctor<{ domainId: pulumi.Input<string>; timeout?: pulumi.Input<string> }, V>;
}

type CustomDomainLike<T extends DnsTargetLike> = pulumi.CustomResource & { dnsTarget: pulumi.Output<T> };
type CustomDomainVerificationLike = pulumi.CustomResource & { status: pulumi.Output<string>; verifiedAt: pulumi.Output<string | null | undefined> };

/** Adds a VerifiedCustomDomain's children under `parent`: the domain, its records in the zone, and the verification after them. */
export function buildVerifiedCustomDomain<T extends DnsTargetLike, D extends CustomDomainLike<T>, S extends pulumi.CustomResource, V extends CustomDomainVerificationLike>(
  parent: pulumi.ComponentResource,
  name: string,
  args: VerifiedCustomDomainArgs,
  kit: CustomDomainKit<D, S, V>,
) {
  const customDomain = new kit.CustomDomain(name, { serviceId: args.serviceId, domain: args.domain }, { parent });
  const recordSet = new kit.DnsRecordSet(
    `${name}-records`,
    { zoneId: args.zoneId, records: pulumi.all([customDomain.dnsTarget, args.zoneId]).apply(([t, zoneId]) => customDomainZoneRecords(t, zoneId)) },
    { parent },
  );
  const verification = new kit.CustomDomainVerification(name, { domainId: customDomain.id, timeout: args.timeout }, { parent, dependsOn: [recordSet] });
  return {
    customDomain,
    recordSet,
    verification,
    outputs: { domainId: customDomain.id, status: verification.status, dnsTarget: customDomain.dnsTarget as D["dnsTarget"], verifiedAt: verification.verifiedAt as V["verifiedAt"] },
  };
}
