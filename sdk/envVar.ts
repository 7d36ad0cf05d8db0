import * as pulumi from "@pulumi/pulumi";
import type { EnvVarArgs, EnvVarState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface EnvVar extends OutputsOf<EnvVarState> {}

/**
 * One environment variable of a service, owned by this resource alone. A key change deletes the
 * old variable before creating the new one. The value is always secret. It applies on the
 * service's next deploy; for the first deploy, declare the key in `Service.envVars` instead.
 */
export class EnvVar extends Resource {
  constructor(name: string, args: EnvVarArgs, opts?: pulumi.CustomResourceOptions) {
    super("EnvVar", name, { ...args, value: pulumi.secret(args.value) }, opts);
  }
}
