// Every resource the provider serves, by name.
import type { ResourceDefinition } from "./framework";
import { Environment } from "./environment";
import { Project } from "./project";
import { Service } from "./service";
import { EnvVar } from "./envVar";
import { SecretFile } from "./secretFile";
import { DnsZone } from "./dnsZone";
import { DnsZoneVerification } from "./dnsZoneVerification";
import { DnsRecord } from "./dnsRecord";
import { DnsRecordSet } from "./dnsRecordSet";
import { MailDomain } from "./mailDomain";
import { MailDomainVerification } from "./mailDomainVerification";
import { Suppression } from "./suppression";
import { Bucket } from "./bucket";
import { StaticSite } from "./staticSite";
import { CustomDomain } from "./customDomain";
import { CustomDomainVerification } from "./customDomainVerification";
import "./previews";
// Functions not defined beside a resource register themselves on import.
import "./serviceFunctions";
import "./storageFunctions";

export const resources: Record<string, ResourceDefinition> = {
  Project,
  Environment,
  Service,
  EnvVar,
  SecretFile,
  DnsZone, DnsZoneVerification, DnsRecord, DnsRecordSet, MailDomain, MailDomainVerification, Suppression,
  Bucket,
  StaticSite,
  CustomDomain,
  CustomDomainVerification,
};
