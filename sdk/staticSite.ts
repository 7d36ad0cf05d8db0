import type * as pulumi from "@pulumi/pulumi";
import { type OutputsOf, Resource } from "./resource";
import type { StaticSiteArgs, StaticSiteState } from "./types";

export interface StaticSite extends OutputsOf<StaticSiteState> {}

/**
 * A static site published from a local directory, .zip or .html file. The provider hashes the
 * content at preview, so a changed file shows as an update; `up` uploads it and deploys it in place
 * on the same URL, waiting until the new deploy is live. `name` defaults to the resource's name.
 * A relative `path` is the program directory's, and state keeps it relative.
 */
export class StaticSite extends Resource {
  constructor(name: string, args: StaticSiteArgs, opts?: pulumi.CustomResourceOptions) {
    super("StaticSite", name, { ...args, name: args.name ?? name }, opts);
  }
}
