import type * as pulumi from "@pulumi/pulumi";
import type { DnsRecordArgs, DnsRecordState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface DnsRecord extends OutputsOf<DnsRecordState> {}

/**
 * One record of a platform zone. Names may be relative ('www', '@') or full ('www.example.com.');
 * TXT values may be quoted or split; case is ignored: none of these show as drift.
 */
export class DnsRecord extends Resource {
  constructor(name: string, args: DnsRecordArgs, opts?: pulumi.CustomResourceOptions) {
    super("DnsRecord", name, args, opts);
  }
}
