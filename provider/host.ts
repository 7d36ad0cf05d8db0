// Runs inside Pulumi's dynamic-provider host. The serialized provider of each resource only
// names its kind and loads this module by package name, so state holds no code and no secrets.
import { IDENTITY_INPUT } from "./client/idempotency";
import { resolveConfig } from "./config";
import { definition, Operations } from "./operations";
import { ResourceInitError } from "./resources/framework";
import { DRIFT_OUTPUT, hasMaps, listsOf, mapsOf } from "./refresh";
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

/**
 * Keyed lists (a Service's env vars and secret files) reach the handlers as lists. The SDK sends
 * them as maps by key, and inputs keep that form: the engine, which gives this host no secrets,
 * then keeps each secret value secret on its own, where a list it would make secret as a whole.
 */
const lists = (kind: string, props: any) => listsOf(definition(kind), props);
function asSent(kind: string, inputs: Record<string, unknown> | undefined, asMaps: boolean) {
  const marked = withSecrets(kind, inputs);
  return asMaps ? mapsOf(definition(kind), marked) : marked;
}

export async function check(kind: string, olds: any, news: any) {
  const who = { identity: identityOf(news), name: typeof news?.__logicalName === "string" ? news.__logicalName : undefined };
  const r = await once(ops.check(kind, lists(kind, withoutIdentity(olds)), lists(kind, withoutIdentity(news)), who));
  const identity = news?.[IDENTITY_INPUT];
  const inputs = asSent(kind, r.inputs, hasMaps(definition(kind), news));
  return inputs && identity !== undefined ? { ...r, inputs: { ...inputs, [IDENTITY_INPUT]: identity } } : { ...r, inputs };
}
export const diff = (kind: string, id: string, olds: any, news: any) => once(ops.diff(kind, id, lists(kind, withoutIdentity(olds)), lists(kind, withoutIdentity(news))));
export const create = (kind: string, inputs: any) =>
  keepInState(async () => {
    const r = await ops.create(kind, lists(kind, withoutIdentity(inputs)), { identity: identityOf(inputs) });
    return { ...r, outs: withSecrets(kind, r.outs) };
  }, inputs?.__provider);
/**
 * This host is not given the state's inputs: the read compares the live object with what the old
 * outputs stand for. Nothing changed: no inputs go back, and the engine keeps the state's. Else the
 * live inputs go back, and the changes found ride along as a hidden output.
 */
export const read = async (kind: string, id: string, props: any) => {
  const r = await once(ops.read(kind, id, lists(kind, props)));
  if (!r.id) return r;
  const outs = withSecrets(kind, r.props);
  if (r.unchanged || !r.inputs) return { id: r.id, props: outs };
  return { id: r.id, props: r.drift?.length ? { ...outs, [DRIFT_OUTPUT]: r.drift } : outs, inputs: asSent(kind, r.inputs, true) };
};
export const update = (kind: string, id: string, olds: any, news: any) =>
  keepInState(async () => {
    const r = await ops.update(kind, id, lists(kind, olds), lists(kind, withoutIdentity(news)), { identity: identityOf(news) });
    return { ...r, outs: withSecrets(kind, r.outs) };
  }, news?.__provider);
export const remove = (kind: string, id: string, props: any) => once(ops.delete(kind, id, lists(kind, props)));
