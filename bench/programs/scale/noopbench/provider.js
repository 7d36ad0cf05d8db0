// The dynamic stacks' baseline: a provider whose resources cost nothing (create answers every
// property of the type it stands in for, ../../shape.js once installed; read returns the state).
// Each type's provider is a module's exports under node_modules, as ours are
// (pulumi-cloudplatform/provider/dynamic/<Type>), so that Pulumi serializes it as the same short
// `require` of its module into each resource's state, not as its code.
module.exports = (kind) => ({
  async create(inputs) {
    return require("../../shape").created(kind, inputs);
  },
  async read(id, props) {
    return { id, props };
  },
});
