import * as pulumi from "@pulumi/pulumi";
import type { ServiceArgs, ServiceState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface Service extends OutputsOf<ServiceState> {}

/**
 * A service in an environment: a web app, static site, cron job or database. Its env vars and
 * secret files are sent with the create, so the first deploy has them; `up` waits for the deploy
 * to be RUNNING (`waitForDeploy`, `timeout`). Env var values, file contents, the DB password and
 * `connection` are always secret.
 */
export class Service extends Resource {
  constructor(name: string, args: ServiceArgs, opts?: pulumi.CustomResourceOptions) {
    // Secret inside the inputs too, so no value is stored in plain text in state.
    const secretArgs = {
      ...args,
      envVars: args.envVars === undefined ? undefined : pulumi.secret(args.envVars),
      secretFiles: args.secretFiles === undefined ? undefined : pulumi.secret(args.secretFiles),
      dbPassword: args.dbPassword === undefined ? undefined : pulumi.secret(args.dbPassword),
    };
    super("Service", name, secretArgs, opts);
  }
}
