// `make bench-scale`'s stacks, native SDK: `mixed` (N resources in blocks of five, as the dynamic
// program has them, served by the provider's plugin) or `noop` (N resources of a plugin that
// answers at once, ./noop, in the same blocks with the same dependencies: the baseline).
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const mode = config.require("mode");
const n = config.requireNumber("count");
const tag = config.require("tag");

class Noop extends pulumi.CustomResource {
  declare readonly name: pulumi.Output<string>;
  constructor(name: string, args: { name: pulumi.Input<string>; parentName?: pulumi.Input<string> }) {
    super("noopbench:index:Resource", name, { ...args, name: args.name });
  }
}

if (mode === "noop") {
  for (let b = 0; b * 5 < n; b++) {
    const left = n - b * 5;
    const first = new Noop(`n${b}a`, { name: `${tag}-${b}a` });
    if (left > 1) new Noop(`n${b}b`, { name: `${tag}-${b}b`, parentName: first.name });
    if (left > 2) {
      const third = new Noop(`n${b}c`, { name: `${tag}-${b}c` });
      if (left > 3) new Noop(`n${b}d`, { name: `${tag}-${b}d`, parentName: third.name });
    }
    if (left > 4) new Noop(`n${b}e`, { name: `${tag}-${b}e` });
  }
} else {
  for (let b = 0; b * 5 < n; b++) {
    const left = n - b * 5;
    const project = new cloud.Project(`p${b}`, { name: `${tag}-p${b}` });
    if (left > 1) new cloud.Environment(`e${b}`, { projectId: project.id, name: "production" });
    if (left > 2) {
      const zone = new cloud.DnsZone(`z${b}`, { name: `${tag}-z${b}.example` });
      if (left > 3) new cloud.DnsRecord(`r${b}`, { zoneId: zone.id, name: "www", type: "TXT", content: "v=bench" });
    }
    if (left > 4) new cloud.Bucket(`b${b}`, { name: `${tag}-b${b}` });
  }
}
