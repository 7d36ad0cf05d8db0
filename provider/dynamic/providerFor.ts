// The dynamic provider each resource kind's module exports. Pulumi serializes it into state, so it
// is kept tiny: each method only names the resource kind and loads the real code by package name.
// Each kind's provider is the whole export of its own module (provider/dynamic/<Kind>), which
// Pulumi's serializer stores as a require of that module when the package is installed under
// node_modules: a few hundred bytes, the same for every version and install path.
import type * as pulumi from "@pulumi/pulumi";

export function providerFor(kind: string): pulumi.dynamic.ResourceProvider {
  return {
    configure: (req) => require("pulumi-cloudplatform/provider/host").configure(req),
    check: (olds, news) => require("pulumi-cloudplatform/provider/host").check(kind, olds, news),
    diff: (id, olds, news) => require("pulumi-cloudplatform/provider/host").diff(kind, id, olds, news),
    create: (inputs) => require("pulumi-cloudplatform/provider/host").create(kind, inputs),
    read: (id, props) => require("pulumi-cloudplatform/provider/host").read(kind, id, props),
    update: (id, olds, news) => require("pulumi-cloudplatform/provider/host").update(kind, id, olds, news),
    delete: (id, props) => require("pulumi-cloudplatform/provider/host").remove(kind, id, props),
  };
}
