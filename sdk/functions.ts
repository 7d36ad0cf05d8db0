// Functions (data sources) run in the program itself, with the same configuration rules as the
// provider: `cloudplatform:*` stack config, then CLOUDPLATFORM_* environment variables.
import * as pulumi from "@pulumi/pulumi";
import { makeContext, resolveConfig } from "../provider/config";
import type { FunctionDefinition } from "../provider/functions";
import type { Context } from "../provider/resources/framework";

let shared: { settings: string; context: Context } | undefined;

/**
 * The context functions call the API with; built once per program, and again when the settings
 * change: an Automation API process runs several stacks' programs, each with its own.
 */
export function functionContext(): Context {
  // runtime.getConfig reads a secret value without the plain-text warning Config.get gives.
  const config = resolveConfig((k) => pulumi.runtime.getConfig(k));
  const settings = JSON.stringify(config);
  if (shared?.settings !== settings) shared = { settings, context: makeContext(config, {}, (m) => pulumi.log.info(m)) };
  return shared.context;
}

/** Where a stand-in for the platform's answers is installed (pulumi-cloudplatform/testing/mocks); global, so copies of the package share it. */
export const FUNCTION_ANSWERS = Symbol.for("pulumi-cloudplatform.functionAnswers");
export type FunctionAnswers = (token: string, args: object) => Promise<unknown>;

/** Runs a function against the platform, or asks the installed stand-in (unit tests with mocks). */
export function invokeFunction<A extends object, R>(def: FunctionDefinition<A, R>, args: A): Promise<R> {
  const answers = (globalThis as { [FUNCTION_ANSWERS]?: FunctionAnswers })[FUNCTION_ANSWERS];
  return answers ? (answers(def.token, args) as Promise<R>) : def.invoke(functionContext(), args);
}

/**
 * Wraps a promise-returning function into its Output form, e.g. getDnsZone -> getDnsZoneOutput.
 * As Pulumi's own invokes do, it answers unknown while previewing when an argument comes from a
 * resource whose id is not known yet (one this run creates or replaces): the object it names may
 * not exist before `up`. At `up` it runs, and a name that matches nothing fails there.
 */
export function outputForm<A extends object, R>(fn: (args: A) => Promise<R>) {
  return (args: pulumi.Inputs & { [K in keyof A]: pulumi.Input<A[K]> }): pulumi.Output<R> => {
    const given = pulumi.output(args);
    const ready = dependenciesExist(given);
    return given.apply(async (plain) => ((await ready) ? fn(plain as unknown as A) : (pulumi.unknown as unknown as R)));
  };
}

/** False while previewing when `o` comes from a custom resource with no id yet. */
async function dependenciesExist(o: pulumi.Output<unknown>): Promise<boolean> {
  if (!pulumi.runtime.isDryRun()) return true;
  // Every resource the value came from, as the SDK tracks them (not part of its typings).
  const impl = o as unknown as { allResources?: () => Promise<Set<pulumi.Resource>> };
  const from = impl.allResources ? await impl.allResources() : new Set<pulumi.Resource>();
  for (const r of from) {
    if (!pulumi.CustomResource.isInstance(r)) continue;
    const id = r.id as unknown as { isKnown?: Promise<boolean> };
    if (id.isKnown && !(await id.isKnown)) return false;
  }
  return true;
}
