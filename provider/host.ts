// Runs inside Pulumi's dynamic-provider host. The serialized provider of each resource only
// names its kind and loads this module by package name, so state holds no code and no secrets.
import { IDENTITY_INPUT } from "./client/idempotency";
import { resolveConfig } from "./config";
import { definition, Operations } from "./operations";
import { ResourceInitError } from "./resources/framework";
import { markSecretPaths } from "./secrets";
import { servingProcess } from "./serving";

servingProcess();

/** Progress lines of long waits reach the CLI through the engine's log. */
function log(message: string): void {
  try {
    require("@pulumi/pulumi").log.info(message);
  } catch {
    process.stderr.write(message + "\n");
  }
}

let ops = new Operations(resolveConfig(() => undefined), log);

/**
 * Each error is shown once, against its resource. The host also prints the message and stack of
 * each check, diff, read and delete error to its stderr, which the CLI shows a second time (and the
 * stack repeats the message): an error of ours carries a marked stack, and that print is dropped.
 */
const REPORTED = "\u2063cloudplatform-reported";
const printError = console.error.bind(console);
console.error = (...args: unknown[]) => {
  if (typeof args[0] === "string" && args[0].endsWith(REPORTED)) return;
  printError(...args);
};
function once<T>(p: Promise<T>): Promise<T> {
  return p.catch((err) => {
    const e = err instanceof Error ? err : new Error(String(err));
    e.stack = REPORTED;
    throw e;
  });
}

interface DynamicConfig {
  get(key: string): string | undefined;
}

export async function configure(req: { config: DynamicConfig }): Promise<void> {
  ops = new Operations(resolveConfig((k) => req.config.get(k)), log);
}

/**
 * "Created but broken" keeps its id and properties for the engine, with the serialized provider,
 * which later reads and deletes need.
 */
async function keepInState<T>(fn: () => Promise<T>, provider: unknown): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ResourceInitError)) throw err;
    const e = new Error(err.message) as Error & { id: string; properties: unknown; reasons: string[] };
    e.id = err.id;
    e.properties = provider === undefined ? err.properties : { ...err.properties, __provider: provider };
    e.reasons = err.reasons;
    throw e;
  }
}

/**
 * The identity the SDK put in the hidden input (dynamic creates see no URN). It never reaches a
 * handler and never shows in a diff; a stack made before it existed simply has none.
 */
function identityOf(inputs: any): string | undefined {
  const v = inputs?.[IDENTITY_INPUT];
  return typeof v === "string" && v !== "" ? v : undefined;
}
function withoutIdentity(inputs: any): any {
  if (!inputs || !(IDENTITY_INPUT in inputs)) return inputs;
  const { [IDENTITY_INPUT]: _, ...rest } = inputs;
  return rest;
}

/**
 * Secret values nested in a property (a secret env var's value) go back marked, and the engine
 * keeps them secret on their own: the SDK leaves the list itself plain, so the rest shows in diffs.
 */
function withSecrets<T extends Record<string, unknown> | undefined>(kind: string, props: T): T {
  const paths = props && definition(kind).secretPaths?.(props);
  return paths?.length ? markSecretPaths(props!, paths) : props;
}

export async function check(kind: string, olds: any, news: any) {
  const who = { identity: identityOf(news), name: typeof news?.__logicalName === "string" ? news.__logicalName : undefined };
  const r = await once(ops.check(kind, withoutIdentity(olds), withoutIdentity(news), who));
  const identity = news?.[IDENTITY_INPUT];
  const inputs = withSecrets(kind, r.inputs);
  return inputs && identity !== undefined ? { ...r, inputs: { ...inputs, [IDENTITY_INPUT]: identity } } : { ...r, inputs };
}
export const diff = (kind: string, id: string, olds: any, news: any) => once(ops.diff(kind, id, withoutIdentity(olds), withoutIdentity(news)));
export const create = (kind: string, inputs: any) =>
  keepInState(async () => {
    const r = await ops.create(kind, withoutIdentity(inputs), { identity: identityOf(inputs) });
    return { ...r, outs: withSecrets(kind, r.outs) };
  }, inputs?.__provider);
export const read = async (kind: string, id: string, props: any) => {
  const r = await once(ops.read(kind, id, props));
  return { ...r, props: withSecrets(kind, r.props), ...("inputs" in r && r.inputs ? { inputs: withSecrets(kind, r.inputs) } : {}) };
};
export const update = (kind: string, id: string, olds: any, news: any) =>
  keepInState(async () => {
    const r = await ops.update(kind, id, olds, withoutIdentity(news), { identity: identityOf(news) });
    return { ...r, outs: withSecrets(kind, r.outs) };
  }, news?.__provider);
export const remove = (kind: string, id: string, props: any) => once(ops.delete(kind, id, props));
