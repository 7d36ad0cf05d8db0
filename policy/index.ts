// pulumi-cloudplatform/policy: a CrossGuard policy pack of the platform's rules, for programs of
// every SDK. In a policy pack's index.ts:
//
//   import { CloudPlatformGuard } from "pulumi-cloudplatform/policy";
//   new CloudPlatformGuard({ all: "mandatory", healthCheckPath: "advisory", dnsTtl: { minTtl: 600 } });
import { type EnforcementLevel, PolicyPack, type Policies } from "@pulumi/policy";
import { type GuardPolicy, type PolicySetting, toPolicy } from "./guard";
import { corsWildcard, dnsTtl, type DnsTtlSettings, healthCheckPath, publicBuckets, type PublicBucketsSettings, secretEnvVars } from "./resourcePolicies";
import { domainVerification, type FreeTierSettings, freeTierInProduction, mailDmarc, uniqueEnvVarKeys } from "./stackPolicies";

export type { PolicySetting } from "./guard";
export { kindOf, tokensOf } from "./resources";

/** Every policy of the pack, in the order the CLI lists them. */
export const guardPolicies: readonly GuardPolicy<any>[] = [
  publicBuckets, freeTierInProduction, secretEnvVars, healthCheckPath, domainVerification, mailDmarc, corsWildcard, dnsTtl, uniqueEnvVarKeys,
];

export interface CloudPlatformGuardSettings {
  /** The level of every policy not set on its own; without it, each policy's default level. */
  all?: "mandatory" | "advisory" | "disabled";
  /** No PUBLIC_READ bucket, except `allowedBuckets`. Default mandatory. */
  publicBuckets?: PolicySetting<PublicBucketsSettings>;
  /** No FREE tier in an environment named in `environments` (default production, prod). Default mandatory. */
  freeTierInProduction?: PolicySetting<FreeTierSettings>;
  /** Env vars named *_KEY, *_TOKEN, *_SECRET, PASSWORD are marked secret. Default mandatory. */
  secretEnvVars?: PolicySetting;
  /** WEB services set healthCheckPath. Default advisory. */
  healthCheckPath?: PolicySetting;
  /** Custom and mail domains come with their verification. Default mandatory. */
  domainVerification?: PolicySetting;
  /** Mail domains have a DMARC record. Default advisory. */
  mailDmarc?: PolicySetting;
  /** CORS rules open to '*' allow only GET and HEAD. Default mandatory. */
  corsWildcard?: PolicySetting;
  /** DNS TTLs within minTtl..maxTtl (default 300..86400). Default advisory. */
  dnsTtl?: PolicySetting<DnsTtlSettings>;
  /** One declaration per env var key and service. Default mandatory. */
  uniqueEnvVarKeys?: PolicySetting;
}

const LEVELS = ["mandatory", "advisory", "disabled", "remediate"];

/** The level and settings of one policy from the guard's settings. */
export function resolveSetting(def: GuardPolicy<any>, settings: CloudPlatformGuardSettings): { level: EnforcementLevel; given: object } {
  const own = (settings as Record<string, unknown>)[def.key];
  if (typeof own === "string") {
    if (!LEVELS.includes(own)) throw new Error(`CloudPlatformGuard: ${def.key} must be "mandatory", "advisory", "disabled" or an object of settings; got "${own}"`);
    return { level: own as EnforcementLevel, given: {} };
  }
  const { enforcementLevel, ...given } = (own ?? {}) as { enforcementLevel?: EnforcementLevel };
  for (const k of Object.keys(given)) {
    if (!(k in def.defaults)) throw new Error(`CloudPlatformGuard: ${def.key} has no setting '${k}'${Object.keys(def.defaults).length ? ` (it has ${Object.keys(def.defaults).join(", ")})` : ""}`);
  }
  return { level: enforcementLevel ?? settings.all ?? def.defaultLevel, given };
}

/** The @pulumi/policy policies of the guard's settings; disabled ones are left out. */
export function cloudPlatformPolicies(settings: CloudPlatformGuardSettings = {}): Policies {
  for (const k of Object.keys(settings)) {
    if (k !== "all" && !guardPolicies.some((p) => p.key === k)) {
      throw new Error(`CloudPlatformGuard: unknown policy '${k}'; the policies are ${guardPolicies.map((p) => p.key).join(", ")}`);
    }
  }
  return guardPolicies.flatMap((def) => {
    const { level, given } = resolveSetting(def, settings);
    return level === "disabled" ? [] : [toPolicy(def, level, given)];
  });
}

/**
 * The policy pack: construct it once in a policy pack's program (it serves the policies to the
 * CLI). `name` is the pack's name as the CLI shows it.
 */
export class CloudPlatformGuard {
  constructor(settings: CloudPlatformGuardSettings = {}, name = "cloudplatform-guard") {
    new PolicyPack(name, { policies: cloudPlatformPolicies(settings) });
  }
}
