// The pack's own shape of a policy: what it reads (checked against schema.json by a test), its
// default level, its settings, and the remediation that names the property to change. toPolicy
// turns one into a @pulumi/policy ResourceValidationPolicy or StackValidationPolicy.
import type {
  EnforcementLevel, Policy, PolicyConfigSchema, PolicyResource, ReportViolation, ResourceValidationArgs,
  ResourceValidationPolicy, StackValidationArgs, StackValidationPolicy,
} from "@pulumi/policy";
import { isUnknownValueError, kindOf } from "./resources";

/** How one policy is set: a level, or its settings with an optional level. */
export type PolicySetting<S = {}> = "mandatory" | "advisory" | "disabled" | (Partial<S> & { enforcementLevel?: EnforcementLevel });

/** One resource as a resource policy sees it. */
export interface GuardResource {
  kind: string;
  name: string;
  urn: string;
  props: Record<string, any>;
}

export interface GuardPolicy<S extends object = {}> {
  /** The key in CloudPlatformGuard's settings, e.g. `publicBuckets`. */
  key: string;
  /** The policy's name as the CLI shows it. */
  name: string;
  description: string;
  defaultLevel: "mandatory" | "advisory";
  /** What to change: names the property. */
  remediation: string;
  /** The properties each kind's validation reads (a test holds them to schema.json). */
  reads: Record<string, string[]>;
  /** Settings and their defaults; each is also in the configSchema, so --policy-pack-config can set it. */
  defaults: S;
  configSchema?: PolicyConfigSchema["properties"];
  /** Resource policies: the violations of one resource, as messages. */
  validateResource?(r: GuardResource, settings: S): string[];
  /** Stack policies: the violations across the stack, each with the resource it is about. */
  validateStack?(resources: PolicyResource[], settings: S): { urn: string; message: string }[];
}

/** The settings a policy runs with: its defaults, then the pack's arguments, then the engine's config. */
function settingsOf<S extends object>(def: GuardPolicy<S>, given: object, fromEngine: () => object): S {
  const out: Record<string, unknown> = { ...(def.defaults as Record<string, unknown>) };
  const known = Object.keys(def.defaults);
  let engine: object = {};
  try {
    engine = fromEngine() ?? {};
  } catch {
    // No config from the engine (a unit test's args may not carry any).
  }
  for (const src of [given, engine]) {
    for (const [k, v] of Object.entries(src)) if (known.includes(k) && v !== undefined) out[k] = v;
  }
  return out as S;
}

const withRemediation = (def: GuardPolicy<any>, message: string) => `${message}\nRemediation: ${def.remediation}`;

/**
 * A policy whose values are not known yet (a preview, where they come from other resources) finds
 * nothing: it runs again on the known values of the stack once `up` has made them.
 */
function unlessUnknown<T>(validate: () => T[]): T[] {
  try {
    return validate();
  } catch (e) {
    if (isUnknownValueError(e)) return [];
    throw e;
  }
}

export function toPolicy<S extends object>(def: GuardPolicy<S>, level: EnforcementLevel, given: object): ResourceValidationPolicy | StackValidationPolicy {
  const base: Policy = {
    name: def.name,
    description: def.description,
    enforcementLevel: level,
    remediationSteps: def.remediation,
    ...(def.configSchema ? { configSchema: { properties: def.configSchema } } : {}),
  };
  if (def.validateResource) {
    const validate = def.validateResource.bind(def);
    return {
      ...base,
      validateResource: (args: ResourceValidationArgs, report: ReportViolation) => {
        const kind = kindOf(args.type);
        if (!kind || !def.reads[kind]) return;
        const settings = settingsOf(def, given, () => args.getConfig());
        for (const m of unlessUnknown(() => validate({ kind, name: args.name, urn: args.urn, props: args.props }, settings))) report(withRemediation(def, m));
      },
    };
  }
  const validate = def.validateStack!.bind(def);
  return {
    ...base,
    validateStack: (args: StackValidationArgs, report: ReportViolation) => {
      const settings = settingsOf(def, given, () => args.getConfig());
      for (const v of unlessUnknown(() => validate(args.resources, settings))) report(withRemediation(def, v.message), v.urn);
    },
  };
}
