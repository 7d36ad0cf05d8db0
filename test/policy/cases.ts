// The pass and fail cases of every policy: run by policies.test.ts, and replayed by schema.test.ts
// to record which properties the policies read.
import type { Res } from "./args";

export interface ResourceCase {
  policy: string;
  kind: string;
  props: Record<string, unknown>;
  /** A part of the violation's message; none means it passes. */
  fails?: string;
  config?: object;
}

const web = { environmentId: "e1", name: "web", type: "WEB", image: "nginx", healthCheckPath: "/healthz" };
export const resourceCases: ResourceCase[] = [
  { policy: "no-public-buckets", kind: "Bucket", props: { name: "data", visibility: "PRIVATE" } },
  { policy: "no-public-buckets", kind: "Bucket", props: { name: "data" } },
  { policy: "no-public-buckets", kind: "Bucket", props: { name: "data", visibility: "PUBLIC_READ" }, fails: "Bucket 'b' has visibility PUBLIC_READ" },
  { policy: "no-public-buckets", kind: "Bucket", props: { name: "site-assets", visibility: "PUBLIC_READ" }, config: { allowedBuckets: ["site-assets"] } },
  { policy: "secret-env-vars", kind: "EnvVar", props: { serviceId: "s", key: "API_KEY", value: "v", secret: true } },
  { policy: "secret-env-vars", kind: "EnvVar", props: { serviceId: "s", key: "LOG_LEVEL", value: "debug" } },
  { policy: "secret-env-vars", kind: "EnvVar", props: { serviceId: "s", key: "STRIPE_TOKEN", value: "v" }, fails: "holds STRIPE_TOKEN, which is not marked secret" },
  { policy: "secret-env-vars", kind: "Service", props: { ...web, envVars: [{ key: "PORT", value: "80" }, { key: "PASSWORD", value: "p", secret: true }] } },
  { policy: "secret-env-vars", kind: "Service", props: { ...web, envVars: [{ key: "PORT", value: "80" }, { key: "SESSION_SECRET", value: "p" }] }, fails: "envVars[SESSION_SECRET] is not marked secret" },
  // The dynamic SDK sends the list as a map by key.
  { policy: "secret-env-vars", kind: "Service", props: { ...web, envVars: { PORT: { value: "80" }, SESSION_SECRET: { value: "p" } } }, fails: "envVars[SESSION_SECRET] is not marked secret" },
  { policy: "secret-env-vars", kind: "Service", props: { ...web, envVars: { PORT: { value: "80" }, PASSWORD: { value: "p", secret: true } } } },
  { policy: "web-health-check", kind: "Service", props: web },
  { policy: "web-health-check", kind: "Service", props: { ...web, type: "CRON", healthCheckPath: undefined, schedule: "0 * * * *" } },
  { policy: "web-health-check", kind: "Service", props: { ...web, healthCheckPath: undefined }, fails: "WEB service 'b' has no healthCheckPath" },
  { policy: "cors-wildcard-read-only", kind: "Bucket", props: { corsRules: [{ allowedOrigins: ["*"], allowedMethods: ["GET", "head"] }] } },
  { policy: "cors-wildcard-read-only", kind: "Bucket", props: { corsRules: [{ allowedOrigins: ["https://app.example.com"], allowedMethods: ["PUT"] }] } },
  { policy: "cors-wildcard-read-only", kind: "Bucket", props: { corsRules: [{ allowedOrigins: ["https://a.example"], allowedMethods: ["GET"] }, { allowedOrigins: ["*"], allowedMethods: ["GET", "put", "DELETE"] }] }, fails: "corsRules[1] allows PUT, DELETE from any origin" },
  { policy: "dns-ttl-range", kind: "DnsRecord", props: { zoneId: "z", name: "www", type: "A", content: "203.0.113.10", ttl: 3600 } },
  { policy: "dns-ttl-range", kind: "DnsRecord", props: { zoneId: "z", name: "www", type: "A", content: "203.0.113.10" } },
  { policy: "dns-ttl-range", kind: "DnsRecord", props: { zoneId: "z", name: "www", type: "A", content: "203.0.113.10", ttl: 60 }, fails: "has ttl 60, outside 300 to 86400 seconds" },
  { policy: "dns-ttl-range", kind: "DnsRecord", props: { zoneId: "z", name: "www", type: "A", content: "203.0.113.10", ttl: 600 }, config: { minTtl: 900 }, fails: "outside 900 to 86400" },
  { policy: "dns-ttl-range", kind: "DnsRecordSet", props: { zoneId: "z", records: [{ name: "a", type: "A", content: "203.0.113.1", ttl: 300 }, { name: "b", type: "TXT", content: "x", ttl: 90 }] }, fails: "records[1] (TXT b) has ttl 90" },
];

// ---- stack policies ----
const prodEnv: Res = { kind: "Environment", name: "prod", props: { projectId: "p", name: "Production" } };
const devEnv: Res = { kind: "Environment", name: "dev", props: { projectId: "p", name: "dev" } };
const svc = (env: Res, tier?: string, extra: Record<string, unknown> = {}): Res => ({ kind: "Service", name: "api", props: { ...web, tier, ...extra }, deps: { environmentId: [env] } });
const zone: Res = { kind: "DnsZone", name: "zone", props: { name: "example.com" } };
const mail: Res = { kind: "MailDomain", name: "mail", props: { name: "mail.example.com" } };
const mailVerification: Res = { kind: "MailDomainVerification", name: "mail-v", props: {}, deps: { domainId: [mail] } };
const custom: Res = { kind: "CustomDomain", name: "www", props: { domain: "www.example.com", serviceId: "s" } };
const dmarc = (name: string, content = "v=DMARC1; p=none;"): Res => ({ kind: "DnsRecord", name: "dmarc", props: { name, type: "TXT", content }, deps: { zoneId: [zone] } });

export interface StackCase {
  policy: string;
  title: string;
  resources: Res[];
  fails?: string;
  /** The resource the violation is about. */
  about?: string;
  config?: object;
}
const verifiedMail = { kind: "VerifiedMailDomain", name: "vmail", props: {} } as Res;
export const stackCases: StackCase[] = [
  { policy: "no-free-tier-in-production", title: "STARTER in production", resources: [prodEnv, svc(prodEnv, "STARTER")] },
  { policy: "no-free-tier-in-production", title: "FREE in dev", resources: [devEnv, svc(devEnv, "FREE")] },
  { policy: "no-free-tier-in-production", title: "FREE in Production", resources: [prodEnv, svc(prodEnv, "FREE")], fails: "FREE tier in environment 'Production'", about: "api" },
  { policy: "no-free-tier-in-production", title: "FREE in a configured name", resources: [devEnv, svc(devEnv, "FREE")], config: { environments: ["dev"] }, fails: "environment 'dev'", about: "api" },
  { policy: "domains-verified", title: "MailDomain with a MailDomainVerification", resources: [mail, mailVerification, dmarc("_dmarc.mail")] },
  { policy: "domains-verified", title: "children of the Verified components", resources: [{ ...custom, parent: { kind: "VerifiedCustomDomain", name: "vc" } }, { ...mail, parent: verifiedMail }] },
  { policy: "domains-verified", title: "CustomDomain with a CustomDomainVerification", resources: [custom, { kind: "CustomDomainVerification", name: "cv", props: {}, deps: { domainId: [custom] } }] },
  { policy: "domains-verified", title: "CustomDomain alone", resources: [custom], fails: "CustomDomain 'www' (www.example.com) has no CustomDomainVerification", about: "www" },
  { policy: "domains-verified", title: "a verification of another domain", resources: [mail, dmarc("_dmarc.mail"), { ...mailVerification, deps: { domainId: [{ ...mail, name: "other" }] } }], fails: "MailDomain 'mail' (mail.example.com) has no MailDomainVerification", about: "mail" },
  { policy: "mail-dmarc", title: "a _dmarc record in the zone", resources: [zone, mail, mailVerification, dmarc("_dmarc.mail")] },
  { policy: "mail-dmarc", title: "the organisational domain's record in a record set", resources: [zone, mail, mailVerification, { kind: "DnsRecordSet", name: "set", props: { records: [{ name: "_dmarc", type: "txt", content: "\"v=DMARC1; p=reject;\"" }] }, deps: { zoneId: [zone] } }] },
  { policy: "mail-dmarc", title: "a VerifiedMailDomain", resources: [{ ...mail, parent: verifiedMail }] },
  { policy: "mail-dmarc", title: "no record", resources: [zone, mail, mailVerification], fails: "no DMARC record at _dmarc.mail.example.com", about: "mail" },
  { policy: "mail-dmarc", title: "a record that is not DMARC", resources: [zone, mail, mailVerification, dmarc("_dmarc.mail", "v=spf1 -all")], fails: "no DMARC record", about: "mail" },
  { policy: "mail-dmarc", title: "a VerifiedMailDomain with publishOptional false", resources: [{ ...mail, parent: { ...verifiedMail, props: { publishOptional: false } } }], fails: "no DMARC record", about: "mail" },
  { policy: "unique-env-var-keys", title: "distinct keys", resources: (() => {
    const s = svc(devEnv, "STARTER", { envVars: [{ key: "A", value: "1" }] });
    return [devEnv, s, { kind: "EnvVar", name: "b", props: { key: "B", value: "2" }, deps: { serviceId: [s] } }];
  })() },
  { policy: "unique-env-var-keys", title: "the same key on two services", resources: (() => {
    const s = svc(devEnv, "STARTER", { envVars: [{ key: "A", value: "1" }] });
    const other = { ...svc(devEnv, "STARTER"), name: "other" };
    return [devEnv, s, other, { kind: "EnvVar", name: "a", props: { key: "A", value: "2" }, deps: { serviceId: [other] } }];
  })() },
  { policy: "unique-env-var-keys", title: "a key inline and as an EnvVar", resources: (() => {
    const s = svc(devEnv, "STARTER", { envVars: [{ key: "A", value: "1" }] });
    return [devEnv, s, { kind: "EnvVar", name: "a", props: { key: "A", value: "2" }, deps: { serviceId: [s] } }];
  })(), fails: "declares A more than once: envVars, EnvVar 'a'", about: "api" },
  { policy: "unique-env-var-keys", title: "a key inline (the dynamic SDK's map) and as an EnvVar", resources: (() => {
    const s = svc(devEnv, "STARTER", { envVars: { A: { value: "1" } } });
    return [devEnv, s, { kind: "EnvVar", name: "a", props: { key: "A", value: "2" }, deps: { serviceId: [s] } }];
  })(), fails: "declares A more than once: envVars, EnvVar 'a'", about: "api" },
  { policy: "unique-env-var-keys", title: "two EnvVars of one key", resources: (() => {
    const s = svc(devEnv, "STARTER");
    return [devEnv, s, ...["x", "y"].map((n) => ({ kind: "EnvVar", name: n, props: { key: "TOKEN_TTL", value: "1" }, deps: { serviceId: [s] } }))];
  })(), fails: "declares TOKEN_TTL more than once: EnvVar 'x', EnvVar 'y'", about: "api" },
];

