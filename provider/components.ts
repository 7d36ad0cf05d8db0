// The component resources: an object, its records in a platform zone and its verification, in one
// declaration. Here are their inputs and outputs, from which schema.json describes them to every
// SDK; sdk/components.ts builds their children, for the dynamic SDK and the plugin's Construct alike.
import { z } from "zod";
import { dnsTargetOutput, customDomainName } from "./resources/customDomain";
import { domainInput } from "./resources/dnsZone";
import { mailRecordOutput } from "./resources/mailDomain";
import { duration, id, regionKey } from "./resources/rules";

export interface ComponentDefinition {
  /** Pulumi type token, e.g. `cloudplatform:index:VerifiedMailDomain`. */
  token: string;
  description: string;
  inputs: z.ZodObject<any>;
  /** Plain outputs. */
  outputs: z.ZodObject<any>;
  /** Outputs that are the component's children, by output name: the resource kind, and what it is. */
  children: Record<string, { kind: string; description: string }>;
}

const timeout = (what: string) => duration(`How long to wait for ${what}, e.g. "90s" or "15m". Default 15m.`).optional();

export const verifiedMailDomainInputs = z.object({
  name: domainInput("The sending domain, e.g. mail.example.com. It must lie inside the zone. Changing it replaces the domain."),
  zoneId: id("The platform zone that holds the domain (a DnsZone's id, best taken from its DnsZoneVerification)."),
  region: regionKey.describe("Region the domain sends from. Defaults to the workspace's. Changing it replaces the domain.").optional(),
  workspaceId: id("Workspace of the domain. Defaults to cloudplatform:workspaceId, or the only workspace the key reaches.").optional(),
  timeout: timeout("verification"),
  publishOptional: z.boolean().describe("Publish the recommended (not required) records too, such as DMARC. Default true.").optional(),
});
export type VerifiedMailDomainInputs = z.infer<typeof verifiedMailDomainInputs>;

export const verifiedCustomDomainInputs = z.object({
  serviceId: id("The web service (WEB or STATIC) the domain serves."),
  domain: customDomainName,
  zoneId: id("The platform zone that holds the domain (a DnsZone's id, best taken from its DnsZoneVerification)."),
  timeout: timeout("the domain to become ACTIVE"),
});
export type VerifiedCustomDomainInputs = z.infer<typeof verifiedCustomDomainInputs>;

export const components: Record<string, ComponentDefinition> = {
  VerifiedMailDomain: {
    token: "cloudplatform:index:VerifiedMailDomain",
    description:
      "A mail sending domain in one declaration: the MailDomain, its records published into a platform zone as a DnsRecordSet, " +
      "and its MailDomainVerification, waited for. A failed verification names each wrong record.",
    inputs: verifiedMailDomainInputs,
    outputs: z.object({
      domainId: z.string().describe("The mail domain's id."),
      status: z.string().describe("VERIFIED once the component is up."),
      records: z.array(mailRecordOutput).describe("The published records: DKIM, SPF, MX (never for an apex), DMARC."),
    }),
    children: {
      mailDomain: { kind: "MailDomain", description: "The sending domain." },
      recordSet: { kind: "DnsRecordSet", description: "Its records in the zone." },
      verification: { kind: "MailDomainVerification", description: "Its verification." },
    },
  },
  VerifiedCustomDomain: {
    token: "cloudplatform:index:VerifiedCustomDomain",
    description:
      "A custom domain in one declaration: the CustomDomain, its dnsTarget records published into a platform zone as a DnsRecordSet, " +
      "and its CustomDomainVerification, waited for until ACTIVE. A failed verification names each missing, wrong or conflicting record.",
    inputs: verifiedCustomDomainInputs,
    outputs: z.object({
      domainId: z.string().describe("The custom domain's id."),
      status: z.string().describe("ACTIVE once the component is up."),
      dnsTarget: dnsTargetOutput,
      verifiedAt: z.string().nullable().describe("When the domain became ACTIVE."),
    }),
    children: {
      customDomain: { kind: "CustomDomain", description: "The custom domain." },
      recordSet: { kind: "DnsRecordSet", description: "Its records in the zone." },
      verification: { kind: "CustomDomainVerification", description: "Its verification." },
    },
  },
};
