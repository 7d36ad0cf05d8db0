import * as pulumi from "@pulumi/pulumi";
import type { ServiceArgs, ServiceState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface Service extends OutputsOf<ServiceState> {}

/**
 * A service in an environment: a web app, static site, cron job or database. Its env vars and
 * secret files are sent with the create, so the first deploy has them; `up` waits for the deploy
 * to be RUNNING (`waitForDeploy`, `timeout`). The values of secret env vars (`secret: true`), file
 * contents, the DB password and `connection` are always secret, each on its own; other env vars
 * are plain, so their changes and drift show.
 */
export class Service extends Resource {
  constructor(name: string, args: ServiceArgs, opts?: pulumi.CustomResourceOptions) {
    // Secret inside the inputs too, so no value is stored in plain text in state. Env vars and
    // secret files are not wrapped as lists: the provider marks each secret value and each content.
    const secretArgs = {
      ...args,
      dbPassword: args.dbPassword === undefined ? undefined : pulumi.secret(args.dbPassword),
    };
    super("Service", name, secretArgs, opts);
  }
}
