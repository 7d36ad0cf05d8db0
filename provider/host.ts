// Runs inside Pulumi's dynamic-provider host. The serialized provider of each resource only
// names its kind and loads this module by package name, so state holds no code and no secrets.
import { redactKeys } from "./client";
import { makeContext, resolveConfig, type ProviderConfig } from "./config";
import { type Context, ResourceInitError } from "./resources/framework";
import { resources } from "./resources";

let config: ProviderConfig = resolveConfig(() => undefined);
let ctx: Context | undefined;

interface DynamicConfig {
  get(key: string): string | undefined;
}

export async function configure(req: { config: DynamicConfig }): Promise<void> {
  config = resolveConfig((k) => req.config.get(k));
  ctx = undefined;
}

function context(): Context {
  ctx ??= makeContext(config, {}, (message) => {
    try {
      // Progress lines of long waits reach the CLI through the engine's log.
      require("@pulumi/pulumi").log.info(message);
    } catch {
      process.stderr.write(message + "\n");
    }
  });
  return ctx;
}

function definition(kind: string) {
  const def = resources[kind];
  if (!def) throw new Error(`cloudplatform: unknown resource kind '${kind}'`);
  return def;
}

/**
 * Errors leave the provider with keys redacted. "Created but broken" keeps its id and properties
 * for the engine, with the serialized provider, which later reads and deletes need.
 */
async function guard<T>(fn: () => Promise<T> | T, provider?: unknown): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ResourceInitError) {
      const e = new Error(redactKeys(err.message)) as Error & { id: string; properties: unknown; reasons: string[] };
      e.id = err.id;
      e.properties = provider === undefined ? err.properties : { ...err.properties, __provider: provider };
      e.reasons = err.reasons.map(redactKeys);
      throw e;
    }
    const e = err as Error;
    throw new Error(redactKeys(e?.message ?? String(err)));
  }
}

export const check = (kind: string, olds: any, news: any) =>
  guard(async () => {
    const def = definition(kind);
    return def.check ? def.check(olds ?? {}, news ?? {}) : { inputs: news };
  });

export const diff = (kind: string, id: string, olds: any, news: any) =>
  guard(async () => {
    const def = definition(kind);
    return def.diff ? def.diff(id, olds, news) : {};
  });

export const create = (kind: string, inputs: any) => guard(() => definition(kind).create(context(), inputs), inputs?.__provider);

export const read = (kind: string, id: string, props: any) =>
  guard(async () => {
    const def = definition(kind);
    return def.read ? def.read(context(), id, props ?? {}) : { id, props };
  });

export const update = (kind: string, id: string, olds: any, news: any) =>
  guard(async () => {
    const def = definition(kind);
    if (!def.update) throw new Error(`cloudplatform: ${kind} cannot be updated in place`);
    return def.update(context(), id, olds, news);
  }, news?.__provider);

export const remove = (kind: string, id: string, props: any) =>
  guard(async () => {
    const def = definition(kind);
    if (def.delete) await def.delete(context(), id, props ?? {});
  });
