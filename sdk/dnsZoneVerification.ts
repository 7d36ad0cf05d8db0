import type * as pulumi from "@pulumi/pulumi";
import type { DnsZoneVerificationArgs, DnsZoneVerificationState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface DnsZoneVerification extends OutputsOf<DnsZoneVerificationState> {}

/**
 * Waits until a zone's ownership is proven (its nameservers point at the platform, or its TXT
 * verificationRecord is published) and the zone is published. Deleting it changes nothing.
 */
export class DnsZoneVerification extends Resource {
  constructor(name: string, args: DnsZoneVerificationArgs, opts?: pulumi.CustomResourceOptions) {
    super("DnsZoneVerification", name, args, opts);
  }
}
