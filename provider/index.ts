// The provider's core for use outside Pulumi programs: the API client, the resource handlers and the
// operations that run them (what both the dynamic resources and the native plugin call).
import { loadAll } from "./resources";

export * from "./client";
export { CONFIG_KEYS, makeContext, resolveConfig, type ProviderConfig } from "./config";
export { Operations, type OperationOptions } from "./operations";
export { resources } from "./resources";
export { functions } from "./functions";

// The core entry point offers the whole catalogue.
loadAll();
