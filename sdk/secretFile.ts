import * as pulumi from "@pulumi/pulumi";
import type { SecretFileArgs, SecretFileState } from "./types";
import { type OutputsOf, Resource } from "./resource";

export interface SecretFile extends OutputsOf<SecretFileState> {}

/** A secret file mounted into a service on its next deploy. Its content is always secret. */
export class SecretFile extends Resource {
  constructor(name: string, args: SecretFileArgs, opts?: pulumi.CustomResourceOptions) {
    super("SecretFile", name, { ...args, content: pulumi.secret(args.content) }, opts);
  }
}
