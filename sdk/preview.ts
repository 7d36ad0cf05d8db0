// Outputs kept known while previewing an update on the dynamic SDK. Pulumi's dynamic provider host
// cannot preview an update: the engine then gives back only the new inputs, so every other output
// is unknown, and a resource wired to one shows a change `up` will not make (a custom domain
// replaced, an env var updated). The outputs below no update changes, and users wire them; while
// previewing an update of their resource, the SDK reads them from the platform instead.
import * as pulumi from "@pulumi/pulumi";
import { resources } from "../provider/resources";
import { stableOutputsOf } from "../provider/resources/framework";
import { functionContext } from "./functions";

/** Per resource kind: the outputs read while previewing its update. */
export const READ_IN_PREVIEW: Record<string, string[]> = {
  Project: ["workspaceId", "region"],
  Service: ["url", "region", "regionLabel"],
  StaticSite: ["url"],
  Bucket: ["workspaceId", "region", "endpoint", "publicBaseUrl"],
};

/** Inputs a read needs to find its object, or that decide whether an output stays (a rename and the URL). */
const LOCATORS = ["workspaceId", "region", "name", "subdomain"];

type Outputs = Record<string, pulumi.Output<unknown>>;

/**
 * Replaces the outputs READ_IN_PREVIEW names on `res` with ones that, while previewing, take the
 * platform's value when the engine left them unknown and the id is known (an update). A create (no
 * id yet), an input the program declares, an output this update changes, or a failed read stays
 * unknown.
 */
export function readInPreview(res: pulumi.CustomResource, kind: string, args: Record<string, unknown>): void {
  const keys = READ_IN_PREVIEW[kind];
  if (!keys || !pulumi.runtime.isDryRun()) return;
  const def = resources[kind];
  const inputs = new Set(Object.keys(def.inputs.shape));
  const locators = LOCATORS.filter((k) => inputs.has(k));
  let read: Promise<Record<string, unknown> | undefined> | undefined;
  // Once per resource, and only when some output is unknown.
  const readOnce = (id: string, given: Record<string, unknown>) =>
    (read ??= Promise.resolve()
      .then(async () => {
        const ctx = functionContext();
        // Not declared: it was made in the workspace the configuration names (or the only one).
        if (inputs.has("workspaceId") && given.workspaceId === undefined) given = { ...given, workspaceId: await ctx.workspaceId() };
        return def.read!(ctx, id, given as never);
      })
      .then((r) => (r.id ? ({ ...r.props, __stable: stableOutputsOf(def, r.props ?? {}, { ...r.props, ...given }) } as Record<string, unknown>) : undefined))
      .catch(() => undefined));
  const outputs = res as unknown as Outputs;
  for (const key of keys) {
    // A declared input is already known (or unknown because what it comes from is changing).
    if (inputs.has(key) && args[key] !== undefined) continue;
    const raw = outputs[key];
    outputs[key] = applyWithUnknowns(raw, (value) => {
      if (!pulumi.isUnknown(value)) return value;
      const located = pulumi.all([res.id, ...locators.map((k) => pulumi.output(args[k]))]);
      return located.apply(async ([id, ...values]) => {
        const given = Object.fromEntries(locators.map((k, i) => [k, values[i]]).filter(([, v]) => v !== undefined));
        const live = await readOnce(id, given);
        const keeps = live && key in live && (inputs.has(key) || (live.__stable as string[]).includes(key));
        return keeps ? live[key] : pulumi.unknown;
      });
    });
  }
}

/**
 * `output.apply` that also runs while the value is unknown (then `func` sees `pulumi.unknown`),
 * keeping the output's dependencies and secrecy. The SDK's Output has this as a second argument
 * of `apply`, which its type declarations leave out.
 */
function applyWithUnknowns<T, U>(output: pulumi.Output<T>, func: (value: T) => U | pulumi.Output<U>): pulumi.Output<U> {
  return (output.apply as unknown as (f: typeof func, runWithUnknowns: boolean) => pulumi.Output<U>).call(output, func, true);
}
