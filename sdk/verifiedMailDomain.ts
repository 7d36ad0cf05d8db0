// VerifiedMailDomain: the whole sending-domain flow in one declaration. It adds the MailDomain,
// publishes its records into a platform zone as a DnsRecordSet, and waits for verification.
import * as pulumi from "@pulumi/pulumi";
import type { MailDnsRecord } from "./types";
import { DnsRecordSet } from "./dnsRecordSet";
import { MailDomain } from "./mailDomain";
import { MailDomainVerification } from "./mailDomainVerification";

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

type RecordInput = { name: string; type: string; content: string; priority?: number };

/** The records to publish in the zone: by zoneHost when the domain's zone is this zone, else by full name. */
export function zoneRecords(records: MailDnsRecord[], domainZoneId: string | null | undefined, zoneId: string, publishOptional = true): RecordInput[] {
  return records
    .filter((r) => r.required || publishOptional)
    .map((r) => {
      const rec: RecordInput = { name: domainZoneId === zoneId && r.zoneHost ? r.zoneHost : `${r.fqdn}.`, type: r.type, content: r.value };
      if (r.priority !== null) rec.priority = r.priority;
      return rec;
    });
}

export class VerifiedMailDomain extends pulumi.ComponentResource {
  /** The mail domain's id. */
  readonly domainId: pulumi.Output<string>;
  /** VERIFIED once the component is up. */
  readonly status: pulumi.Output<string>;
  /** The published records: DKIM, SPF, MX (never for an apex), DMARC. */
  readonly records: pulumi.Output<MailDnsRecord[]>;
  readonly mailDomain: MailDomain;
  readonly recordSet: DnsRecordSet;
  readonly verification: MailDomainVerification;

  constructor(name: string, args: VerifiedMailDomainArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cloudplatform:index:VerifiedMailDomain", name, {}, opts);
    this.mailDomain = new MailDomain(name, { name: args.name, region: args.region, workspaceId: args.workspaceId }, { parent: this });
    this.recordSet = new DnsRecordSet(
      `${name}-records`,
      {
        zoneId: args.zoneId,
        records: pulumi
          .all([this.mailDomain.records, this.mailDomain.zone, args.zoneId, args.publishOptional])
          .apply(([records, zone, zoneId, optional]) => zoneRecords(records, zone?.dnsZoneId, zoneId, optional ?? true)),
      },
      { parent: this },
    );
    this.verification = new MailDomainVerification(
      name,
      { domainId: this.mailDomain.id, timeout: args.timeout, workspaceId: this.mailDomain.workspaceId },
      { parent: this, dependsOn: [this.recordSet] },
    );
    this.domainId = this.mailDomain.id;
    this.status = this.verification.status;
    this.records = this.mailDomain.records;
    this.registerOutputs({ domainId: this.domainId, status: this.status, records: this.records });
  }
}
