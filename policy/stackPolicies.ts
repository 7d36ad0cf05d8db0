// Policies over the whole stack: they relate resources to one another through the properties one
// takes from another (a Service's environmentId from its Environment), which the engine records
// for programs of every SDK.
import type { PolicyResource } from "@pulumi/policy";
import { DMARC_VALUE_RULE, fqdnOf, normaliseType, unquoteTxt } from "../provider/resources/dnsRecordRules";
import { normaliseDomain } from "../provider/resources/dnsZone";
import { duplicateKeys } from "../provider/resources/serviceSchema";
import type { GuardPolicy } from "./guard";
import { ancestorOf, dependsOn, keyedItems, kindOf, known, label, list } from "./resources";

const ofKind = (rs: PolicyResource[], kind: string) => rs.filter((r) => kindOf(r.type) === kind);
const dependsOnUrn = (r: PolicyResource, property: string, urn: string) => (r.propertyDependencies?.[property] ?? []).some((d) => d.urn === urn);

export interface FreeTierSettings {
  /** Environment names (any letter case) where FREE is not allowed. */
  environments: string[];
}
export const freeTierInProduction: GuardPolicy<FreeTierSettings> = {
  key: "freeTierInProduction",
  name: "cloudplatform-no-free-tier-in-production",
  description: "Services in a production environment are not on the FREE tier, which shares one slot per workspace and sleeps.",
  defaultLevel: "mandatory",
  remediation: "set the Service's `tier` to STARTER, STANDARD or PRO (changing it replaces the service).",
  reads: { Service: ["tier", "environmentId"], Environment: ["name"] },
  defaults: { environments: ["production", "prod"] },
  configSchema: { environments: { type: "array", items: { type: "string" } } },
  validateStack(resources, s) {
    const names = new Set(s.environments.map((e) => e.toLowerCase()));
    return ofKind(resources, "Service").flatMap((svc) => known(() => {
      if (svc.props.tier !== "FREE") return [];
      const env = dependsOn(svc, "environmentId", "Environment").find((e) => known(() => typeof e.props.name === "string" && names.has(e.props.name.toLowerCase()), false));
      return env ? [{ urn: svc.urn, message: `Service ${label(svc)} is on the FREE tier in environment '${env.props.name}'.` }] : [];
    }, []));
  },
};

const VERIFIED = { CustomDomain: ["VerifiedCustomDomain", "CustomDomainVerification"], MailDomain: ["VerifiedMailDomain", "MailDomainVerification"] } as const;
export const domainVerification: GuardPolicy = {
  key: "domainVerification",
  name: "cloudplatform-domains-verified",
  description: "Custom domains and mail domains are declared with their verification, so `up` finishes only once they work.",
  defaultLevel: "mandatory",
  remediation: "declare the domain through VerifiedCustomDomain / VerifiedMailDomain, or add a CustomDomainVerification / MailDomainVerification whose `domainId` is the domain's id.",
  reads: { CustomDomainVerification: ["domainId"], MailDomainVerification: ["domainId"], CustomDomain: ["domain"], MailDomain: ["name"] },
  defaults: {},
  validateStack(resources) {
    return (Object.keys(VERIFIED) as (keyof typeof VERIFIED)[]).flatMap((kind) => {
      const [component, verification] = VERIFIED[kind];
      const verifications = ofKind(resources, verification);
      return ofKind(resources, kind).flatMap((d) => {
        if (ancestorOf(d, component) || verifications.some((v) => dependsOnUrn(v, "domainId", d.urn))) return [];
        const domain = known(() => (kind === "CustomDomain" ? d.props.domain : d.props.name), "a domain not known yet");
        return [{ urn: d.urn, message: `${kind} ${label(d)} (${domain}) has no ${verification} and is not part of a ${component}.` }];
      });
    });
  },
};

/**
 * The full names of the DMARC records the stack declares: TXT records named _dmarc.* holding
 * v=DMARC1; `uncertain` when some record is not known yet (computed from another resource).
 */
function dmarcNames(resources: PolicyResource[]): { names: Set<string>; uncertain: boolean } {
  const out = new Set<string>();
  let uncertain = false;
  const add = (owner: PolicyResource, rec: { name?: unknown; type?: unknown; content?: unknown }) => {
    if (typeof rec.name !== "string" || typeof rec.type !== "string" || typeof rec.content !== "string") return;
    if (normaliseType(rec.type) !== "TXT" || !DMARC_VALUE_RULE.test(unquoteTxt(rec.content))) return;
    const zones = dependsOn(owner, "zoneId", "DnsZone").map((z) => known(() => z.props.name, undefined)).filter((n): n is string => typeof n === "string");
    for (const zone of zones.length ? zones : [""]) out.add(fqdnOf(rec.name, zone));
  };
  const attempt = (read: () => void) => {
    if (!known(() => (read(), true), false)) uncertain = true;
  };
  for (const r of ofKind(resources, "DnsRecord")) attempt(() => add(r, { name: r.props.name, type: r.props.type, content: r.props.content }));
  for (const set of ofKind(resources, "DnsRecordSet")) {
    for (const rec of known(() => list<Record<string, unknown>>(set.props.records), [])) attempt(() => add(set, { name: rec?.name, type: rec?.type, content: rec?.content }));
    attempt(() => set.props.records);
  }
  return { names: out, uncertain };
}

export const mailDmarc: GuardPolicy = {
  key: "mailDmarc",
  name: "cloudplatform-mail-dmarc",
  description: "Mail domains publish a DMARC record (_dmarc.<domain>, or the organisational domain's), so receivers know what to do with mail that fails SPF or DKIM.",
  defaultLevel: "advisory",
  remediation: "declare the mail domain through VerifiedMailDomain (with `publishOptional` left true), or add a DnsRecord in the domain's zone with `type` TXT, `name` \"_dmarc\" (relative to the domain) and `content` \"v=DMARC1; p=none;\" (or stricter).",
  reads: { MailDomain: ["name"], VerifiedMailDomain: ["publishOptional"], DnsRecord: ["name", "type", "content", "zoneId"], DnsRecordSet: ["records", "zoneId"], DnsZone: ["name"] },
  defaults: {},
  validateStack(resources) {
    const { names: published, uncertain } = dmarcNames(resources);
    return ofKind(resources, "MailDomain").flatMap((d) => known(() => {
      const component = ancestorOf(d, "VerifiedMailDomain");
      // A VerifiedMailDomain publishes DMARC unless publishOptional is false.
      if (component && component.props.publishOptional !== false) return [];
      if (typeof d.props.name !== "string") return [];
      const labels = normaliseDomain(d.props.name).split(".");
      // The domain's own record, or one of a parent domain (not the bare TLD).
      for (let i = 0; i < labels.length - 1; i++) if (published.has(`_dmarc.${labels.slice(i).join(".")}`)) return [];
      // A record not known yet may be the one.
      if (uncertain) return [];
      return [{ urn: d.urn, message: `MailDomain ${label(d)} (${d.props.name}) has no DMARC record at _dmarc.${normaliseDomain(d.props.name)}.` }];
    }, []));
  },
};

export const uniqueEnvVarKeys: GuardPolicy = {
  key: "uniqueEnvVarKeys",
  name: "cloudplatform-unique-env-var-keys",
  description: "Each env var key is declared once per service, across its EnvVar resources and its inline `envVars`: two declarations overwrite each other at every update.",
  defaultLevel: "mandatory",
  remediation: "keep one declaration of the key: remove it from the Service's `envVars` or delete the EnvVar resource with that `key`.",
  reads: { Service: ["envVars"], EnvVar: ["key", "serviceId"] },
  defaults: {},
  validateStack(resources) {
    const envVars = ofKind(resources, "EnvVar");
    return ofKind(resources, "Service").flatMap((svc) => known(() => {
      const own = envVars.filter((v) => dependsOnUrn(v, "serviceId", svc.urn));
      const keys = [
        ...keyedItems<{ key?: unknown }>(svc.props.envVars, "key").map((v) => v?.key),
        ...own.map((v) => v.props.key),
      ].filter((k): k is string => typeof k === "string");
      return duplicateKeys(keys).map((key) => {
        const where = [
          ...(keyedItems<{ key?: unknown }>(svc.props.envVars, "key").some((v) => v?.key === key) ? ["envVars"] : []),
          ...own.filter((v) => v.props.key === key).map((v) => `EnvVar ${label(v)}`),
        ];
        return { urn: svc.urn, message: `Service ${label(svc)} declares ${key} more than once: ${where.join(", ")}.` };
      });
    }, []));
  },
};
