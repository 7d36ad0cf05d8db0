import type * as pulumi from "@pulumi/pulumi";
import type { MailDomainArgs, MailDomainState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface MailDomain extends OutputsOf<MailDomainState> {}

/**
 * A mail sending domain. `records` lists what to publish (DKIM, SPF, MX unless apex, DMARC), in a
 * stable order; feed it to a DnsRecordSet, or to another provider's records when the zone is
 * hosted elsewhere. A new name or region replaces the domain, the old one deleted first.
 */
export class MailDomain extends Resource {
  constructor(name: string, args: MailDomainArgs, opts?: pulumi.CustomResourceOptions) {
    super("MailDomain", name, args, opts);
  }
}
