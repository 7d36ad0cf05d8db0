// VerifiedCustomDomain: a custom domain in one declaration. It attaches the CustomDomain, publishes
// its dnsTarget.records into a platform zone as a DnsRecordSet (which owns only those records), and
// waits until the domain is ACTIVE.
import * as pulumi from "@pulumi/pulumi";
import type { CustomDomainDnsRecord, CustomDomainDnsTarget } from "./types";
import { CustomDomain } from "./customDomain";
import { CustomDomainVerification } from "./customDomainVerification";
import { DnsRecordSet } from "./dnsRecordSet";

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

type RecordInput = { name: string; type: string; content: string };

/**
 * The records to publish, by full name. A CNAME whose name a conflicting record of this zone holds
 * is left out: the zone refuses a CNAME beside other records, and the records of others are never
 * changed, so the verification names the conflict to remove instead. (Once the CNAME is there, the
 * zone refuses any other record at its name, so a published CNAME is never held back.)
 */
export function zoneRecords(target: CustomDomainDnsTarget | undefined, zoneId: string): RecordInput[] {
  // State without a DNS target (an object whose create was cut short): publishing nothing would
  // remove the records; refresh reads the target back.
  if (!target) throw new Error("the custom domain's state holds no dnsTarget; run `pulumi refresh`, then `pulumi up`");
  const blocked = new Set(target.conflicts.filter((c) => c.zoneId === zoneId).map((c) => c.fqdn));
  return target.records
    .filter((r: CustomDomainDnsRecord) => r.type !== "CNAME" || !blocked.has(r.fqdn))
    .map((r) => ({ name: `${r.fqdn}.`, type: r.type, content: r.content }));
}

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
    this.customDomain = new CustomDomain(name, { serviceId: args.serviceId, domain: args.domain }, { parent: this });
    this.recordSet = new DnsRecordSet(
      `${name}-records`,
      { zoneId: args.zoneId, records: pulumi.all([this.customDomain.dnsTarget, args.zoneId]).apply(([t, zoneId]) => zoneRecords(t, zoneId)) },
      { parent: this },
    );
    this.verification = new CustomDomainVerification(
      name,
      { domainId: this.customDomain.id, timeout: args.timeout },
      { parent: this, dependsOn: [this.recordSet] },
    );
    this.domainId = this.customDomain.id;
    this.status = this.verification.status;
    this.dnsTarget = this.customDomain.dnsTarget;
    this.verifiedAt = this.verification.verifiedAt;
    this.registerOutputs({ domainId: this.domainId, status: this.status, dnsTarget: this.dnsTarget, verifiedAt: this.verifiedAt });
  }
}
