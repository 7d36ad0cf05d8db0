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

// The no-op plugin's types stand in for ours, property for property (./shape.js).
const { slots } = require("./shape");
class Noop extends pulumi.CustomResource {
  constructor(kind: string, name: string, args: Record<string, pulumi.Input<unknown>>) {
    super(`noopbench:index:${kind}`, name, slots(kind, args));
  }
}

if (mode === "noop") {
  for (let b = 0; b * 5 < n; b++) {
    const left = n - b * 5;
    const project = new Noop("Project", `p${b}`, { name: `${tag}-p${b}` });
    if (left > 1) new Noop("Environment", `e${b}`, { projectId: project.id, name: "production" });
    if (left > 2) {
      const zone = new Noop("DnsZone", `z${b}`, { name: `${tag}-z${b}.example` });
      if (left > 3) new Noop("DnsRecord", `r${b}`, { zoneId: zone.id, name: "www", type: "TXT", content: "v=bench" });
    }
    if (left > 4) new Noop("Bucket", `b${b}`, { name: `${tag}-b${b}` });
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
