// @pulumi/policy's validation arguments, built as the analyzer server builds them, so every policy
// runs in a test without the CLI. Each resource can be made with either SDK's type token.
import type {
  Policies, PolicyResource, PolicyResourceOptions, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
  StackValidationArgs, StackValidationPolicy,
} from "@pulumi/policy";

export type Sdk = "native" | "dynamic";
export const SDKS: Sdk[] = ["native", "dynamic"];
export const typeOf = (kind: string, sdk: Sdk) => (sdk === "native" ? `cloudplatform:index:${kind}` : `pulumi-nodejs:dynamic/cloudplatform:${kind}`);

const opts: PolicyResourceOptions = {
  protect: false, ignoreChanges: [], aliases: [], additionalSecretOutputs: [],
  customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
};
const notApplicable = (reason?: string): never => {
  throw new Error(`not applicable: ${reason}`);
};
const urnOf = (type: string, name: string) => `urn:pulumi:dev::app::${type}::${name}`;

/** The dynamic SDK's hidden inputs, which no policy may trip on. */
const hidden = (sdk: Sdk) => (sdk === "dynamic" ? { __provider: "exports.handler = require(\"pulumi-cloudplatform/provider/dynamic/X\")", __identity: "app/dev/cloudplatform:X::x" } : {});

export function resourceArgs(kind: string, name: string, props: Record<string, unknown>, sdk: Sdk = "native", config: object = {}): ResourceValidationArgs {
  const type = typeOf(kind, sdk);
  return {
    type, name, urn: urnOf(type, name), props: { ...hidden(sdk), ...props }, opts, stackTags: new Map(),
    isType: () => false, asType: () => undefined, getConfig: <T>() => config as T, notApplicable,
  };
}

export interface Res {
  kind: string;
  name: string;
  props?: Record<string, unknown>;
  /** Property name -> the resources its value came from. */
  deps?: Record<string, Res[]>;
  parent?: Res;
}

/** The stack's resources as PolicyResources of one SDK, with their parents and property dependencies linked. */
export function stackArgs(resources: Res[], sdk: Sdk = "native", config: object = {}): StackValidationArgs {
  const made = new Map<Res, PolicyResource>();
  const make = (r: Res): PolicyResource => {
    let p = made.get(r);
    if (p) return p;
    // Components keep their type token in both SDKs.
    const type = /^Verified/.test(r.kind) ? `cloudplatform:index:${r.kind}` : typeOf(r.kind, sdk);
    p = { type, name: r.name, urn: urnOf(type, r.name), props: { ...hidden(sdk), ...r.props }, opts, dependencies: [], propertyDependencies: {}, isType: () => false, asType: () => undefined };
    made.set(r, p);
    if (r.parent) p.parent = make(r.parent);
    for (const [k, ds] of Object.entries(r.deps ?? {})) {
      p.propertyDependencies[k] = ds.map(make);
      p.dependencies.push(...p.propertyDependencies[k]);
    }
    return p;
  };
  return { resources: resources.map(make), stackTags: new Map(), getConfig: <T>() => config as T, notApplicable };
}

export interface Violation {
  message: string;
  urn?: string;
}

/** The violations each policy of `policies` reports. */
export async function runResource(policies: Policies, args: ResourceValidationArgs): Promise<Record<string, Violation[]>> {
  const out: Record<string, Violation[]> = {};
  for (const p of policies as ResourceValidationPolicy[]) {
    if (!p.validateResource) continue;
    const report: ReportViolation = (message, urn) => (out[p.name] ??= []).push({ message, urn });
    for (const v of [p.validateResource].flat()) await v(args, report);
  }
  return out;
}

export async function runStack(policies: Policies, args: StackValidationArgs): Promise<Record<string, Violation[]>> {
  const out: Record<string, Violation[]> = {};
  for (const p of policies as StackValidationPolicy[]) {
    if (!p.validateStack) continue;
    await p.validateStack(args, (message, urn) => (out[p.name] ??= []).push({ message, urn }));
  }
  return out;
}
