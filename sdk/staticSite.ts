import * as pulumi from "@pulumi/pulumi";
import { resolve } from "node:path";
import { type OutputsOf, Resource } from "./resource";
import type { StaticSiteArgs, StaticSiteState } from "./types";

export interface StaticSite extends OutputsOf<StaticSiteState> {}

/**
 * A static site published from a local directory, .zip or .html file. The provider hashes the
 * content at preview, so a changed file shows as an update; `up` uploads it and deploys it in place
 * on the same URL, waiting until the new deploy is live. `name` defaults to the resource's name.
 */
export class StaticSite extends Resource {
  constructor(name: string, args: StaticSiteArgs, opts?: pulumi.CustomResourceOptions) {
    // Relative paths are the program's, not the provider process's.
    const path = pulumi.output(args.path).apply((p) => resolve(p));
    super("StaticSite", name, { ...args, path, name: args.name ?? name }, opts);
  }
}
