import type * as pulumi from "@pulumi/pulumi";
import type { MailDomainVerificationArgs, MailDomainVerificationState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface MailDomainVerification extends OutputsOf<MailDomainVerificationState> {}

/**
 * Re-checks a mail domain's DNS and waits (capped, jittered backoff) until it is VERIFIED, for at
 * most `timeout` (default "15m"). On timeout, or when the domain is BROKEN, it fails naming every
 * failing record. Refresh re-checks, so a domain that stopped verifying shows as drift.
 */
export class MailDomainVerification extends Resource {
  constructor(name: string, args: MailDomainVerificationArgs, opts?: pulumi.CustomResourceOptions) {
    super("MailDomainVerification", name, args, opts);
  }
}
