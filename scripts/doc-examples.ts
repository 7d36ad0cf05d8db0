// The reference's examples, written once in PCL (Pulumi's own program language, what `pulumi
// convert` and `pulumi import` work from) and turned into TypeScript, Python and Go by the code
// generators of the Pulumi release the project builds on (`sdkgen examples`). Each is a whole
// program; test/docs/examples.test.ts compiles every one in every language.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { Json } from "./json-schema";

export type Language = "typescript" | "python" | "go";
export type Rendered = Record<Language, string>;

const project = `resource shop "cloudplatform:index:Project" {
  name = "shop"
}
`;
const environment = `${project}resource prod "cloudplatform:index:Environment" {
  projectId = shop.id
  name = "prod"
}
`;
const service = `${environment}resource web "cloudplatform:index:Service" {
  environmentId = prod.id
  name = "web"
  type = "WEB"
  image = "nginx:1.27"
}
`;
const zone = `resource zone "cloudplatform:index:DnsZone" {
  name = "example.com"
}
`;
const mail = `resource mail "cloudplatform:index:MailDomain" {
  name = "mail.example.com"
}
`;
const customDomain = `${service}resource www "cloudplatform:index:CustomDomain" {
  serviceId = web.id
  domain = "www.example.com"
}
`;

/** One program per resource and function, by name. */
export const EXAMPLES: Record<string, string> = {
  Project: `resource shop "cloudplatform:index:Project" {
  name = "shop"
  description = "Storefront"
  region = "af-west-1"
}

output projectId {
  value = shop.id
}
`,
  Environment: `${project}resource prod "cloudplatform:index:Environment" {
  projectId = shop.id
  name = "prod"
}

output tier {
  value = prod.kind
}
`,
  Service: `${environment}resource web "cloudplatform:index:Service" {
  environmentId = prod.id
  name = "web"
  type = "WEB"
  image = "nginx:1.27"
  port = 8080
  envVars = [{
    key = "LOG_LEVEL"
    value = "info"
  }]
}

output url {
  value = web.url
}
`,
  EnvVar: `${service}resource flag "cloudplatform:index:EnvVar" {
  serviceId = web.id
  key = "FEATURE_FLAG"
  value = "on"
}
`,
  SecretFile: `config appCredentials "string" {
}

${service}resource creds "cloudplatform:index:SecretFile" {
  serviceId = web.id
  path = "/etc/secrets/app.json"
  content = secret(appCredentials)
}
`,
  DnsZone: `${zone}
output verification {
  value = zone.verificationRecord
}
`,
  DnsZoneVerification: `${zone}resource proven "cloudplatform:index:DnsZoneVerification" {
  zoneId = zone.id
  timeout = "15m"
}
`,
  DnsRecord: `${zone}resource wwwRecord "cloudplatform:index:DnsRecord" {
  zoneId = zone.id
  name = "www"
  type = "CNAME"
  content = "shop.cloudplatform.app"
}
`,
  DnsRecordSet: `${zone}resource site "cloudplatform:index:DnsRecordSet" {
  zoneId = zone.id
  records = [{
    name = "@"
    type = "A"
    content = "203.0.113.10"
  }, {
    name = "@"
    type = "MX"
    content = "mx.example.net"
    priority = 10
  }]
}
`,
  MailDomain: `${mail}
output records {
  value = mail.records
}
`,
  MailDomainVerification: `${mail}resource mailVerified "cloudplatform:index:MailDomainVerification" {
  domainId = mail.id
  timeout = "30m"
}
`,
  Suppression: `resource bounced "cloudplatform:index:Suppression" {
  address = "old-customer@example.org"
}
`,
  Bucket: `resource assets "cloudplatform:index:Bucket" {
  visibility = "PUBLIC_READ"
  corsRules = [{
    allowedMethods = ["GET"]
    allowedOrigins = ["https://www.example.com"]
  }]
}

output endpoint {
  value = assets.endpoint
}
`,
  StaticSite: `${environment}resource site "cloudplatform:index:StaticSite" {
  path = "./public"
  environmentId = prod.id
  name = "marketing"
  spaFallback = true
}

output siteUrl {
  value = site.url
}
`,
  CustomDomain: `${customDomain}
output dnsTarget {
  value = www.dnsTarget
}
`,
  CustomDomainVerification: `${customDomain}resource wwwVerified "cloudplatform:index:CustomDomainVerification" {
  domainId = www.id
  timeout = "30m"
}
`,
  VerifiedMailDomain: `${zone}resource proven "cloudplatform:index:DnsZoneVerification" {
  zoneId = zone.id
}

resource mailDomain "cloudplatform:index:VerifiedMailDomain" {
  name = "mail.example.com"
  zoneId = proven.zoneId
  options {
    dependsOn = [proven]
  }
}

output status {
  value = mailDomain.status
}
`,
  VerifiedCustomDomain: `${service}${zone}resource proven "cloudplatform:index:DnsZoneVerification" {
  zoneId = zone.id
}

resource www "cloudplatform:index:VerifiedCustomDomain" {
  serviceId = web.id
  domain = "www.example.com"
  zoneId = proven.zoneId
  options {
    dependsOn = [proven]
  }
}

output status {
  value = www.status
}
`,
  getProject: lookup("getProject", "projectId", "name"),
  getEnvironment: lookup("getEnvironment", "environmentId", "kind"),
  getService: lookup("getService", "serviceId", "status"),
  getServiceConnection: `config serviceId "string" {
}

connection = invoke("cloudplatform:index:getServiceConnection", {
  serviceId = serviceId
})

output host {
  value = connection.host
}

output databaseUrl {
  value = secret(connection.url)
}
`,
  getCustomDomains: lookup("getCustomDomains", "serviceId", "domains"),
  getPreviews: lookup("getPreviews", "serviceId", "previews"),
  getRegions: `all = invoke("cloudplatform:index:getRegions", {})

output regions {
  value = all.regions
}
`,
  getPricing: `pricing = invoke("cloudplatform:index:getPricing", {})

output currency {
  value = pricing.currency
}
`,
  getMailDomain: `mail = invoke("cloudplatform:index:getMailDomain", {
  name = "mail.example.com"
})

output status {
  value = mail.status
}
`,
  getDnsZone: `zone = invoke("cloudplatform:index:getDnsZone", {
  name = "example.com"
})

output zoneId {
  value = zone.id
}
`,
  getMailLimits: `limits = invoke("cloudplatform:index:getMailLimits", {})

output domains {
  value = limits.domains
}
`,
  getBucket: `bucket = invoke("cloudplatform:index:getBucket", {
  name = "assets"
})

output endpoint {
  value = bucket.endpoint
}
`,
  getStorageAccessKeys: `access = invoke("cloudplatform:index:getStorageAccessKeys", {})

output keys {
  value = access.keys
}
`,
};

/** A function called with an id from config, exporting one field of its result. */
function lookup(fn: string, arg: string, field: string): string {
  return `config ${arg} "string" {
}

result = invoke("cloudplatform:index:${fn}", {
  ${arg} = ${arg}
})

output ${field} {
  value = result.${field}
}
`;
}

/** A program for a resource without one of its own: its required inputs, ids from config. */
export function fallbackExample(token: string, r: Json): string {
  const name = token.split(":")[2];
  const required: string[] = r.requiredInputs ?? [];
  const ids = required.filter((k) => k.endsWith("Id"));
  const value = (k: string, spec: Json): string => {
    if (k.endsWith("Id")) return k;
    if (spec.type === "boolean") return "true";
    if (spec.type === "integer" || spec.type === "number") return "1";
    if (spec.type === "array") return "[]";
    return `"${/domain|name/i.test(k) ? "www.example.com" : `my-${k.toLowerCase()}`}"`;
  };
  return [
    ...ids.map((k) => `config ${k} "string" {\n}\n`),
    `resource example "${token}" {`,
    ...required.map((k) => `  ${k} = ${value(k, r.inputProperties[k] ?? {})}`),
    "}",
    "",
  ].join("\n").replace(/^resource example/m, `resource ${name.charAt(0).toLowerCase()}${name.slice(1)}`);
}

/** Every example in every language, by the release's code generators (`make tools` builds sdkgen). */
export function renderExamples(root: string, sources: Record<string, string>): Record<string, Rendered> {
  const out = execFileSync(join(root, ".tools", "bin", "sdkgen"), ["examples", join(root, "schema.json")], {
    input: JSON.stringify(sources),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as Record<string, Rendered>;
}

const NATIVE_IMPORT = 'import * as cloudplatform from "pulumi-cloudplatform/native";';

/** The Example section of a page: the program in TypeScript (the default SDK), Python and Go. */
export function exampleMarkdown(r: Rendered): string[] {
  return [
    "## Example",
    "",
    "TypeScript (`pulumi-cloudplatform`; the same code compiles against `pulumi-cloudplatform/native`):",
    "",
    "```ts",
    r.typescript.replace(NATIVE_IMPORT, 'import * as cloudplatform from "pulumi-cloudplatform";').trimEnd(),
    "```",
    "",
    "Python (`pulumi_cloudplatform`):",
    "",
    "```python",
    r.python.trimEnd(),
    "```",
    "",
    "Go (`sdk/go/cloudplatform`):",
    "",
    "```go",
    r.go.trimEnd(),
    "```",
    "",
  ];
}
