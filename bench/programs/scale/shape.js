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

module.exports = { TYPES, FILLED, slots };
