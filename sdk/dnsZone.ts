import type * as pulumi from "@pulumi/pulumi";
import type { DnsZoneArgs, DnsZoneState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface DnsZone extends OutputsOf<DnsZoneState> {}

/**
 * A DNS zone hosted by the platform. It stays unpublished until ownership is proven: pair it with a
 * DnsZoneVerification. A new name replaces the zone (the old one is deleted first).
 */
export class DnsZone extends Resource {
  constructor(name: string, args: DnsZoneArgs, opts?: pulumi.CustomResourceOptions) {
    super("DnsZone", name, args, opts);
  }
}
