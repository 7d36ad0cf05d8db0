// Every resource the provider serves, by name. Each module loads on first use, so the dynamic
// provider host holds only the kinds a program declares (P6 in bench/).
import type { ResourceDefinition } from "./framework";

const modules = {
  Project: () => require("./project").Project,
  Environment: () => require("./environment").Environment,
  Service: () => require("./service").Service,
  EnvVar: () => require("./envVar").EnvVar,
  SecretFile: () => require("./secretFile").SecretFile,
  DnsZone: () => require("./dnsZone").DnsZone,
  DnsZoneVerification: () => require("./dnsZoneVerification").DnsZoneVerification,
  DnsRecord: () => require("./dnsRecord").DnsRecord,
  DnsRecordSet: () => require("./dnsRecordSet").DnsRecordSet,
  MailDomain: () => require("./mailDomain").MailDomain,
  MailDomainVerification: () => require("./mailDomainVerification").MailDomainVerification,
  Suppression: () => require("./suppression").Suppression,
  Bucket: () => require("./bucket").Bucket,
  StaticSite: () => require("./staticSite").StaticSite,
  CustomDomain: () => require("./customDomain").CustomDomain,
  CustomDomainVerification: () => require("./customDomainVerification").CustomDomainVerification,
} satisfies Record<string, () => ResourceDefinition>;

export const resources: Record<string, ResourceDefinition> = {};
for (const [kind, load] of Object.entries(modules)) {
  // The first read loads the module and puts its definition in place of the getter.
  Object.defineProperty(resources, kind, {
    enumerable: true,
    configurable: true,
    get: () => {
      const def = load();
      Object.defineProperty(resources, kind, { enumerable: true, value: def });
      return def;
    },
  });
}

/**
 * Loads every module, which also registers every function in `functions` (the plugin's Invoke and
 * the schema need the whole catalogue; a dynamic resource needs only its own kind).
 */
export function loadAll(): void {
  for (const load of Object.values(modules)) load();
  require("./previews");
  require("./serviceFunctions");
  require("./storageFunctions");
}
