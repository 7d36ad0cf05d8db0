// VerifiedMailDomain: the whole sending-domain flow in one declaration. It adds the MailDomain,
// publishes its records into a platform zone as a DnsRecordSet, and waits for verification; the
// children are built by sdk/components.ts, which the native plugin's Construct shares.
import * as pulumi from "@pulumi/pulumi";
import type { MailDnsRecord } from "./types";
import { buildVerifiedMailDomain, mailZoneRecords, type VerifiedMailDomainArgs } from "./components";
import { DnsRecordSet } from "./dnsRecordSet";
import { MailDomain } from "./mailDomain";
import { MailDomainVerification } from "./mailDomainVerification";

export type { VerifiedMailDomainArgs };
/** The records to publish in the zone: by zoneHost when the domain's zone is this zone, else by full name. */
export const zoneRecords = mailZoneRecords;

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
    const parts = buildVerifiedMailDomain(this, name, args, { MailDomain, DnsRecordSet, MailDomainVerification });
    this.mailDomain = parts.mailDomain;
    this.recordSet = parts.recordSet;
    this.verification = parts.verification;
    this.domainId = parts.outputs.domainId;
    this.status = parts.outputs.status;
    this.records = parts.outputs.records;
    this.registerOutputs(parts.outputs);
  }
}
