// The no-op baselines' shape: each no-op resource declares the properties of the type it stands in
// for (from the provider's schema.json), and its create answers every one of them with a value as
// long as the platform's (the emulator's answer for such a resource: ids and workspace ids are
// UUIDs, times ISO timestamps, what is unset null), so the engine and the SDK do the same
// per-property work for both (a promise per declared property) and hold a state of the same bytes
// (the engine rewrites its checkpoint after each step, at a cost that grows with its size): the ratio
// is the provider's own cost. Shared by both bench programs and the no-op plugin
// (bench/scale-stacks.ts copies it beside the native program).
const { randomUUID } = require("node:crypto");
const { dirname, join } = require("node:path");
const schema = require(join(dirname(require.resolve("pulumi-cloudplatform/package.json")), "schema.json"));

const UUID = "00000000-0000-4000-8000-000000000000";
const AT = "2026-01-01T00:00:00.000Z";
/** What the emulator answers for each type's properties in these stacks (the inputs aside). */
const PLATFORM = {
  Project: { createdAt: AT, description: null, displayName: null, paused: false, pausedAt: null, region: "af-west-1", updatedAt: AT, workspaceId: UUID },
  Environment: { createdAt: AT, isPreview: false, kind: null, paused: false, pausedAt: null, projectId: UUID, updatedAt: AT },
  DnsZone: {
    createdAt: AT, lastError: null, published: false, publishedAt: null, updatedAt: AT, verificationMethod: null, verifiedAt: null, workspaceId: UUID,
    verificationRecord: { host: "_cloudplatform-verify", name: "_cloudplatform-verify.s0000x0-z000.example", type: "TXT", value: "cloudplatform-verify=00000000000000000000000000000000" },
  },
  DnsRecord: { createdAt: AT, editable: true, fqdn: "www.s0000x0-z000.example", origin: "USER", priority: null, ttl: 3600, updatedAt: AT, zoneId: UUID, zoneName: "s0000x0-z000.example" },
  Bucket: { corsRules: null, createdAt: AT, endpoint: "http://127.0.0.1:40000/_storage/af-west-1", forceDestroy: false, policy: null, publicBaseUrl: null, region: "af-west-1", visibility: "PRIVATE", workspaceId: UUID },
};

const value = (p) => (p.type === "boolean" ? false : p.type === "integer" || p.type === "number" ? 0 : p.type === "array" ? [] : p.type === "object" ? {} : "bench");

/** Every output of each type the stacks hold: the platform's value where it has one, else a value of its schema type. */
const FILLED = Object.fromEntries(
  Object.entries(PLATFORM).map(([t, platform]) => [t, Object.fromEntries(Object.entries(schema.resources[`cloudplatform:index:${t}`].properties).map(([k, p]) => [k, k in platform ? platform[k] : value(p)]))]),
);

/** A no-op create's answer: an id as the platform makes it (a bucket's is its name), every property, the inputs over them. */
const created = (kind, inputs) => ({ id: kind === "Bucket" ? inputs.name : randomUUID(), outs: { ...FILLED[kind], ...inputs } });

/** The package identity ours has (its default provider's name holds both), for the no-op plugin's resources. */
const PACKAGE = { version: schema.version, pluginDownloadURL: schema.pluginDownloadURL };

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

module.exports = { PACKAGE, created, slots, blocks };
