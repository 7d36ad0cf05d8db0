// VerifiedCustomDomain: a custom domain in one declaration. It attaches the CustomDomain, publishes
// its dnsTarget.records into a platform zone as a DnsRecordSet (which owns only those records), and
// waits until the domain is ACTIVE; the children are built by sdk/components.ts, which the native
// plugin's Construct shares.
import * as pulumi from "@pulumi/pulumi";
import type { CustomDomainDnsTarget } from "./types";
import { buildVerifiedCustomDomain, customDomainZoneRecords, type VerifiedCustomDomainArgs } from "./components";
import { CustomDomain } from "./customDomain";
import { CustomDomainVerification } from "./customDomainVerification";
import { DnsRecordSet } from "./dnsRecordSet";

export type { VerifiedCustomDomainArgs };
/** The records to publish, by full name; a CNAME blocked by a conflicting record of this zone is left out. */
export const zoneRecords = customDomainZoneRecords;

export class VerifiedCustomDomain extends pulumi.ComponentResource {
  /** The custom domain's id. */
  readonly domainId: pulumi.Output<string>;
  /** ACTIVE once the component is up. */
  readonly status: pulumi.Output<string>;
  /** What was published, and what is in the way. */
  readonly dnsTarget: pulumi.Output<CustomDomainDnsTarget>;
  readonly verifiedAt: pulumi.Output<string | null>;
  readonly customDomain: CustomDomain;
  readonly recordSet: DnsRecordSet;
  readonly verification: CustomDomainVerification;

  constructor(name: string, args: VerifiedCustomDomainArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cloudplatform:index:VerifiedCustomDomain", name, {}, opts);
    const parts = buildVerifiedCustomDomain(this, name, args, { CustomDomain, DnsRecordSet, CustomDomainVerification });
    this.customDomain = parts.customDomain;
    this.recordSet = parts.recordSet;
    this.verification = parts.verification;
    this.domainId = parts.outputs.domainId;
    this.status = parts.outputs.status;
    this.dnsTarget = parts.outputs.dnsTarget;
    this.verifiedAt = parts.outputs.verifiedAt;
    this.registerOutputs(parts.outputs);
  }
}
