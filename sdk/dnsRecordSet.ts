import type * as pulumi from "@pulumi/pulumi";
import type { DnsRecordSetArgs, DnsRecordSetState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface DnsRecordSet extends OutputsOf<DnsRecordSetState> {}

/**
 * A set of records in one zone, managed together: it owns exactly the records it lists and never
 * touches the zone's other records. Refresh notices each missing or changed record.
 */
export class DnsRecordSet extends Resource {
  constructor(name: string, args: DnsRecordSetArgs, opts?: pulumi.CustomResourceOptions) {
    super("DnsRecordSet", name, args, opts);
  }
}
