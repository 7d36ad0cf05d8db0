// `make bench-scale`'s stacks, dynamic SDK: `mixed` (N resources in blocks of five: a Project, its
// Environment, a DNS zone, a TXT record in it, a bucket) or `noop` (N resources of dynamic
// providers that answer at once, in the same blocks with the same inputs, properties and
// dependencies: the baseline).
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const mode = config.require("mode");
const n = config.requireNumber("count");
const tag = config.require("tag");

// One no-op provider per type, a module's exports each (./noopbench, installed as node_modules/noopbench).
const { slots, blocks } = require("./shape");
class Noop extends pulumi.dynamic.Resource {
  declare readonly id: pulumi.Output<string>;
  constructor(kind: string, name: string, args: Record<string, pulumi.Input<unknown>>) {
    super(require(`noopbench/${kind}`), name, slots(kind, args));
  }
}

type Args = Record<string, pulumi.Input<unknown>>;
const ours = cloud as unknown as Record<string, new (name: string, args: Args) => pulumi.CustomResource>;
blocks(n, tag, (kind: string, name: string, args: Args) => (mode === "noop" ? new Noop(kind, name, args) : new ours[kind](name, args)));
