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

// One no-op provider per type: create answers every property the type has (./shape.js).
const { FILLED, slots } = require("./shape");
const noops: Record<string, pulumi.dynamic.ResourceProvider> = {};
for (const kind of Object.keys(FILLED)) {
  const filled = FILLED[kind];
  noops[kind] = {
    async create(inputs) {
      return { id: inputs.name, outs: { ...filled, ...inputs } };
    },
    async read(id, props) {
      return { id, props };
    },
  };
}
class Noop extends pulumi.dynamic.Resource {
  declare readonly id: pulumi.Output<string>;
  constructor(kind: string, name: string, args: Record<string, pulumi.Input<unknown>>) {
    super(noops[kind], name, slots(kind, args));
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
