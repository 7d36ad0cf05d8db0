// The no-op baselines' shape: each no-op resource declares the properties of the type it stands in
// for (from the provider's schema.json), and its create answers every one of them, so the engine and
// the SDK do the same per-property work for both (a promise per declared property, a state of the
// same breadth) and the ratio is the provider's own cost. Shared by both bench programs and the
// no-op plugin (bench/scale-stacks.ts copies it beside the native program).
const TYPES = ["Project", "Environment", "DnsZone", "DnsRecord", "Bucket"];
const { dirname, join } = require("node:path");
const schema = require(join(dirname(require.resolve("pulumi-cloudplatform/package.json")), "schema.json"));

const value = (p) => (p.type === "boolean" ? false : p.type === "integer" || p.type === "number" ? 0 : p.type === "array" ? [] : p.type === "object" ? {} : "bench");

/** Every output of each type, filled with a value of its schema type. */
const FILLED = Object.fromEntries(
  TYPES.map((t) => [t, Object.fromEntries(Object.entries(schema.resources[`cloudplatform:index:${t}`].properties).map(([k, p]) => [k, value(p)]))]),
);

/** The resource's inputs, with every other declared property as an output to come. */
const slots = (kind, args) => ({ ...Object.fromEntries(Object.keys(FILLED[kind]).map((k) => [k, undefined])), ...args });

/**
 * The stacks' N resources in blocks of five (a Project, its Environment, a DNS zone, a TXT record in
 * it, a bucket), each made by `make(kind, name, args)`: ours or a no-op, with the same dependencies.
 */
function blocks(n, tag, make) {
  for (let b = 0; b * 5 < n; b++) {
    const left = n - b * 5;
    const project = make("Project", `p${b}`, { name: `${tag}-p${b}` });
    if (left > 1) make("Environment", `e${b}`, { projectId: project.id, name: "production" });
    if (left > 2) {
      const zone = make("DnsZone", `z${b}`, { name: `${tag}-z${b}.example` });
      if (left > 3) make("DnsRecord", `r${b}`, { zoneId: zone.id, name: "www", type: "TXT", content: "v=bench" });
    }
    if (left > 4) make("Bucket", `b${b}`, { name: `${tag}-b${b}` });
  }
}

module.exports = { TYPES, FILLED, slots, blocks };
