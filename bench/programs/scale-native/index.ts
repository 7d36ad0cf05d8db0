// `make bench-scale`'s stacks, native SDK: `mixed` (N resources in blocks of five, as the dynamic
// program has them, served by the provider's plugin) or `noop` (N resources of a plugin that
// answers at once, ./noop, in the same blocks with the same inputs, properties and dependencies:
// the baseline).
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const mode = config.require("mode");
const n = config.requireNumber("count");
const tag = config.require("tag");

// The no-op plugin's types stand in for ours, property for property, under the package version and
// download URL ours has, which its default provider's name (in every resource's state) holds (./shape.js).
const { PACKAGE, slots, blocks } = require("./shape");
class Noop extends pulumi.CustomResource {
  constructor(kind: string, name: string, args: Record<string, pulumi.Input<unknown>>) {
    super(`noopbench:index:${kind}`, name, slots(kind, args), PACKAGE);
  }
}

type Args = Record<string, pulumi.Input<unknown>>;
const ours = cloud as unknown as Record<string, new (name: string, args: Args) => pulumi.CustomResource>;
blocks(n, tag, (kind: string, name: string, args: Args) => (mode === "noop" ? new Noop(kind, name, args) : new ours[kind](name, args)));
