// Policies over one resource at a time. Each reads its rule from the provider's rule modules, so
// the pack, check and the test mocks never disagree on what a key, a method or a TTL may be.
import { writeMethodsOpenToAnyOrigin } from "../provider/resources/bucketRules";
import { TTL_RANGE } from "../provider/resources/dnsRecordRules";
import { looksSecret } from "../provider/resources/serviceSchema";
import type { GuardPolicy } from "./guard";
import { keyedItems, label, list } from "./resources";

export interface PublicBucketsSettings {
  /** Bucket names (or logical names) that may be PUBLIC_READ, e.g. the assets of a public site. */
  allowedBuckets: string[];
}
export const publicBuckets: GuardPolicy<PublicBucketsSettings> = {
  key: "publicBuckets",
  name: "cloudplatform-no-public-buckets",
  description: "Buckets are PRIVATE: a PUBLIC_READ bucket lets anyone read every object in it.",
  defaultLevel: "mandatory",
  remediation: "set the Bucket's `visibility` to \"PRIVATE\" (or leave it out), or add the bucket's name to the policy's `allowedBuckets`.",
  reads: { Bucket: ["visibility", "name"] },
  defaults: { allowedBuckets: [] },
  configSchema: { allowedBuckets: { type: "array", items: { type: "string" } } },
  validateResource(r, s) {
    if (r.props.visibility !== "PUBLIC_READ") return [];
    const allowed = s.allowedBuckets.includes(r.name) || (typeof r.props.name === "string" && s.allowedBuckets.includes(r.props.name));
    return allowed ? [] : [`Bucket ${label(r)} has visibility PUBLIC_READ.`];
  },
};

export const secretEnvVars: GuardPolicy = {
  key: "secretEnvVars",
  name: "cloudplatform-secret-env-vars",
  description: "Env vars whose key names a credential (*_KEY, *_TOKEN, *_SECRET, PASSWORD) are marked secret, so read-only members never see them.",
  defaultLevel: "mandatory",
  remediation: "set `secret: true` on the EnvVar resource, or on the entry of the Service's `envVars` list.",
  reads: { Service: ["envVars"], EnvVar: ["key", "secret"] },
  defaults: {},
  validateResource(r) {
    if (r.kind === "EnvVar") {
      return typeof r.props.key === "string" && looksSecret(r.props.key) && r.props.secret !== true
        ? [`EnvVar ${label(r)} holds ${r.props.key}, which is not marked secret.`] : [];
    }
    return keyedItems<{ key?: string; secret?: boolean }>(r.props.envVars, "key")
      .flatMap((v) => (typeof v?.key === "string" && looksSecret(v.key) && v.secret !== true
        ? [`Service ${label(r)}: envVars[${v.key}] is not marked secret.`] : []));
  },
};

export const healthCheckPath: GuardPolicy = {
  key: "healthCheckPath",
  name: "cloudplatform-web-health-check",
  description: "WEB services set a health check path, so a deploy goes live only once the app answers.",
  defaultLevel: "advisory",
  remediation: "set the Service's `healthCheckPath`, e.g. \"/healthz\".",
  reads: { Service: ["type", "healthCheckPath"] },
  defaults: {},
  validateResource(r) {
    return r.props.type === "WEB" && !r.props.healthCheckPath ? [`WEB service ${label(r)} has no healthCheckPath.`] : [];
  },
};

export const corsWildcard: GuardPolicy = {
  key: "corsWildcard",
  name: "cloudplatform-cors-wildcard-read-only",
  description: "A CORS rule open to any origin ('*') allows only GET and HEAD, so no web page can write to the bucket.",
  defaultLevel: "mandatory",
  remediation: "in the Bucket's `corsRules`, limit `allowedMethods` of a rule whose `allowedOrigins` holds '*' to GET and HEAD, or list the origins.",
  reads: { Bucket: ["corsRules"] },
  defaults: {},
  validateResource(r) {
    return list<{ allowedMethods?: string[]; allowedOrigins?: string[] }>(r.props.corsRules).flatMap((rule, i) => {
      const writes = writeMethodsOpenToAnyOrigin({ allowedMethods: list(rule?.allowedMethods), allowedOrigins: list(rule?.allowedOrigins) });
      return writes.length ? [`Bucket ${label(r)}: corsRules[${i}] allows ${writes.join(", ")} from any origin ('*').`] : [];
    });
  },
};

export interface DnsTtlSettings {
  minTtl: number;
  maxTtl: number;
}
export const dnsTtl: GuardPolicy<DnsTtlSettings> = {
  key: "dnsTtl",
  name: "cloudplatform-dns-ttl-range",
  description: "DNS records set TTLs within a range: short ones load resolvers, long ones make changes slow to reach users.",
  defaultLevel: "advisory",
  remediation: "set the DnsRecord's `ttl` (or the `ttl` of the entry in the DnsRecordSet's `records`) within the range, or leave it out for the platform's 3600.",
  reads: { DnsRecord: ["ttl", "name", "type"], DnsRecordSet: ["records"] },
  defaults: { minTtl: 300, maxTtl: TTL_RANGE.max },
  configSchema: {
    minTtl: { type: "integer", minimum: TTL_RANGE.min, maximum: TTL_RANGE.max },
    maxTtl: { type: "integer", minimum: TTL_RANGE.min, maximum: TTL_RANGE.max },
  },
  validateResource(r, s) {
    const out = (ttl: unknown) => typeof ttl === "number" && (ttl < s.minTtl || ttl > s.maxTtl);
    const range = `${s.minTtl} to ${s.maxTtl} seconds`;
    if (r.kind === "DnsRecord") {
      return out(r.props.ttl) ? [`DnsRecord ${label(r)} (${r.props.type} ${r.props.name}) has ttl ${r.props.ttl}, outside ${range}.`] : [];
    }
    return list<{ name?: string; type?: string; ttl?: number }>(r.props.records).flatMap((rec, i) =>
      out(rec?.ttl) ? [`DnsRecordSet ${label(r)}: records[${i}] (${rec.type} ${rec.name}) has ttl ${rec.ttl}, outside ${range}.`] : []);
  },
};
