// pulumi-cloudplatform: resource classes and functions for the cloud platform.
export { Project } from "./project";
export { Environment } from "./environment";
export { Service } from "./service";
export { EnvVar } from "./envVar";
export { SecretFile } from "./secretFile";
export { getService, getServiceOutput, getRegions, getRegionsOutput, getPricing, getPricingOutput } from "./serviceFunctions";
export { DnsZone } from "./dnsZone";
export { DnsZoneVerification } from "./dnsZoneVerification";
export { DnsRecord } from "./dnsRecord";
export { DnsRecordSet } from "./dnsRecordSet";
export { MailDomain } from "./mailDomain";
export { MailDomainVerification } from "./mailDomainVerification";
export { Suppression } from "./suppression";
export { VerifiedMailDomain, type VerifiedMailDomainArgs } from "./verifiedMailDomain";
export { getMailDomain, getMailDomainOutput, getDnsZone, getDnsZoneOutput } from "./mailFunctions";
export * from "./types";
export { getProject, getProjectOutput, getEnvironment, getEnvironmentOutput } from "./projectFunctions";
