import type * as pulumi from "@pulumi/pulumi";
import type { CustomDomainArgs, CustomDomainState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface CustomDomain extends OutputsOf<CustomDomainState> {}

/**
 * A custom domain on a WEB service. `dnsTarget.records` lists the record to publish (a CNAME to the
 * service's host, or an A record for an apex) and `dnsTarget.conflicts` the existing records in its
 * way. Changing `domain` or `serviceId` replaces it.
 */
export class CustomDomain extends Resource {
  constructor(name: string, args: CustomDomainArgs, opts?: pulumi.CustomResourceOptions) {
    super("CustomDomain", name, args, opts);
  }
}
