import type * as pulumi from "@pulumi/pulumi";
import type { CustomDomainVerificationArgs, CustomDomainVerificationState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface CustomDomainVerification extends OutputsOf<CustomDomainVerificationState> {}

/**
 * Re-checks a custom domain's DNS and waits (capped, jittered backoff) until it is ACTIVE, for at
 * most `timeout` (default "15m"). On timeout it fails naming each missing or wrong record, with
 * what was expected and found, and each conflicting record, which must be removed.
 */
export class CustomDomainVerification extends Resource {
  constructor(name: string, args: CustomDomainVerificationArgs, opts?: pulumi.CustomResourceOptions) {
    super("CustomDomainVerification", name, args, opts);
  }
}
