// Functions (data sources) run in the program itself, with the same configuration rules as the
// provider: `cloudplatform:*` stack config, then CLOUDPLATFORM_* environment variables.
import * as pulumi from "@pulumi/pulumi";
import { makeContext, resolveConfig } from "../provider/config";
import type { Context } from "../provider/resources/framework";

let shared: Context | undefined;

/** The context functions call the API with; built once per program. */
export function functionContext(): Context {
  // runtime.getConfig reads a secret value without the plain-text warning Config.get gives.
  shared ??= makeContext(resolveConfig((k) => pulumi.runtime.getConfig(k)), {}, (m) => pulumi.log.info(m));
  return shared;
}

/** Wraps a promise-returning function into its Output form, e.g. getDnsZone -> getDnsZoneOutput. */
export function outputForm<A extends object, R>(fn: (args: A) => Promise<R>) {
  return (args: pulumi.Inputs & { [K in keyof A]: pulumi.Input<A[K]> }): pulumi.Output<R> =>
    pulumi.output(args).apply((plain) => fn(plain as unknown as A));
}
