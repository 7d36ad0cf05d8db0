// The one place that runs a resource handler: both adapters (the dynamic provider in host.ts and
// the native plugin) call these functions, so neither carries per-resource code. Every error that
// leaves here has platform keys, URL credentials and every value the schema marks secret redacted; "created but broken" stays a ResourceInitError.
import { inOperation, type OperationScope } from "./client";
import { makeContext, type ProviderConfig } from "./config";
import { Redactor, secretStrings } from "./redact";
import { parseImportId } from "./importId";
import {
  type CheckContext, type CheckResult, type Context, type DiffResult, isImport, keptByUpdate, previewUpdate, ResourceInitError, type ResourceDefinition,
} from "./resources/framework";
import { resources } from "./resources";
import type { FunctionDefinition } from "./functions";
import { type DriftChange, driftOf, overlay, withUnmanaged } from "./refresh";

/** What an adapter knows about one operation, beyond its inputs. */
export interface OperationOptions {
  /** The resource's stable identity (its URN where the engine gives one); creates derive their Idempotency-Key from it. */
  identity?: string;
  /** The operation's time limit (customTimeouts); waiters never wait past it. */
  timeoutMs?: number;
  /** Progress lines of this operation, shown by the engine against the resource. */
  log?: (message: string) => void;
}

export function definition(kind: string): ResourceDefinition {
  const def = resources[kind];
  if (!def) throw new Error(`cloudplatform: unknown resource kind '${kind}'`);
  return def;
}

/** What a read found: nothing (the object is gone), or the object, the inputs it stands for and what changed. */
export interface ReadOutcome {
  id?: string;
  props?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  /** The resource's diff finds no change against the state's inputs: `inputs` are those very inputs. */
  unchanged?: boolean;
  /** Each change found, by path. */
  drift?: DriftChange[];
}

/** A configured provider: one API client and workspace lookup, shared by its operations. */
export class Operations {
  readonly #base: Context;
  /** The inputs each resource's check returned in this run, by identity. */
  readonly #declared = new Map<string, Record<string, unknown>>();

  constructor(readonly config: ProviderConfig, log: (message: string) => void = () => {}) {
    const plain = new Redactor(config.apiKey ? [config.apiKey] : []);
    this.#base = makeContext(config, {}, (m) => log(plain.redact(m)));
  }

  /** Masks the key and the secret values of a kind's properties. */
  #redactor(kind: string | undefined, ...props: (Record<string, unknown> | undefined)[]): Redactor {
    const def = kind === undefined ? undefined : resources[kind];
    return new Redactor([...(this.config.apiKey ? [this.config.apiKey] : []), ...secretStrings(def, ...props)]);
  }

  /** The context one operation runs in: the shared client, with this operation's identity, limit and log. */
  context(op: OperationOptions = {}, redactor?: Redactor): Context {
    const base = this.#base;
    const declared = this.#declared;
    const log = op.log ?? base.log;
    return {
      get client() {
        return base.client;
      },
      workspaceId: () => base.workspaceId(),
      log: redactor ? (m) => log(redactor.redact(m)) : log,
      identity: op.identity,
      timeoutMs: op.timeoutMs,
      declared: (identity) => declared.get(identity),
    };
  }

  check(kind: string, olds: Record<string, unknown> | undefined, news: Record<string, unknown> | undefined, who?: CheckContext): Promise<CheckResult<any>> {
    const red = this.#redactor(kind, olds, news);
    return redacted(red, async () => {
      const def = definition(kind);
      const r = def.check ? await def.check(olds ?? {}, news ?? {}, who) : { inputs: news ?? {} };
      if (who?.identity && r.inputs) this.#declared.set(who.identity, r.inputs);
      // A failure's reason may quote the value it refuses.
      return r.failures ? { ...r, failures: r.failures.map((f) => ({ ...f, reason: red.redact(f.reason) })) } : r;
    });
  }

  /**
   * The diff; an in-place update also names the outputs it cannot change (`stables`). An input
   * neither the last inputs nor the new ones hold (one an import left out, for the program to add)
   * is not the program's: it is no change, whatever the outputs hold.
   */
  diff(kind: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs?: Record<string, unknown>): Promise<DiffResult> {
    return redacted(this.#redactor(kind, olds, news, oldInputs), async () => {
      const def = definition(kind);
      const d: DiffResult = def.diff ? await def.diff(id, olds, oldInputs ? withUnmanaged(def, olds, news, oldInputs) : news) : {};
      if (!d.changes || d.replaces?.length || !def.update) return d;
      return { ...d, stables: keptByUpdate(def, olds, news, oldInputs).kept };
    });
  }

  /** The outputs a preview of an in-place update shows: what it keeps and sets, the rest unknown. */
  previewUpdate(kind: string, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs?: Record<string, unknown>): Promise<Record<string, unknown>> {
    return redacted(this.#redactor(kind, olds, news, oldInputs), async () => previewUpdate(definition(kind), olds, news, oldInputs));
  }

  /**
   * Creates run as one operation of the resource's identity, so their keys are derived from it.
   * Created means in state: once the handler's own create has answered, any later failure (a
   * lost connection in a wait, a timeout, a failed follow-up call) leaves the object in state as
   * "created but broken", and the next `up` continues it instead of colliding with it.
   */
  create(kind: string, inputs: Record<string, unknown>, op?: OperationOptions) {
    const r = this.#redactor(kind, inputs);
    return redacted(r, async () => {
      const def = definition(kind);
      const scope: OperationScope = { identity: op?.identity };
      const ctx = this.context(op, r);
      try {
        return await inOperation(scope, () => def.create(ctx, inputs));
      } catch (err) {
        if (err instanceof ResourceInitError || !scope.created) throw err;
        const { id } = scope.created;
        const message = (err as Error)?.message ?? String(err);
        const seen = def.read ? await def.read(ctx, id, inputs).catch(() => undefined) : undefined;
        const props = seen?.props ?? { ...inputs };
        // The reasons are what the CLI shows: they carry the way on too.
        const why = `${message} (the object ${id} was created and is kept in state; the next update continues it)`;
        throw new ResourceInitError(why, id, props, [why]);
      }
    });
  }

  /**
   * A read. On a refresh its inputs are the state's (`declared`, which the native plugin is given;
   * for the dynamic SDK, which is not, what the old outputs stand for) untouched when the resource's
   * diff finds the live object the same (`unchanged`), so a refresh of what nobody changed changes
   * nothing; otherwise each changed input takes its live value and `drift` names each change.
   */
  read(kind: string, id: string, props: Record<string, unknown> | undefined, op?: OperationOptions, declared?: Record<string, unknown>): Promise<ReadOutcome> {
    const red = this.#redactor(kind, props, declared);
    return redacted(red, async () => {
      const def = definition(kind);
      if (isImport(props)) {
        const { bare, omit } = importOptions(def, id);
        const r = def.read ? await def.read(this.context(op, red), bare, {}) : { id: bare };
        if (!omit.length || !r.inputs) return r;
        return { ...r, inputs: Object.fromEntries(Object.entries(r.inputs).filter(([k]) => !omit.includes(k))) };
      }
      const r = def.read ? await def.read(this.context(op, red), id, props ?? {}) : { id, props, inputs: declared };
      if (!r.id || !r.props) return r;
      const base = declared ?? (def.inputsOf?.(props as never) as Record<string, unknown> | undefined);
      if (!base) return r;
      const drift = await driftOf(def, r.id, r.props as Record<string, unknown>, base);
      if (!drift.changes) return { id: r.id, props: r.props, inputs: declared, unchanged: true };
      const live = (r.inputs ?? {}) as Record<string, unknown>;
      return { id: r.id, props: r.props, inputs: declared ? overlay(declared, live, drift.keys) : live, drift: drift.paths };
    });
  }

  /**
   * An update. The engine also updates a resource kept "created but broken" whose inputs did not
   * change, to continue it: a kind with no update then reads the object back, which fills in what
   * the failed create could not record.
   */
  update(kind: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>, op?: OperationOptions) {
    const r = this.#redactor(kind, olds, news);
    return redacted(r, async () => {
      const def = definition(kind);
      const ctx = this.context(op, r);
      if (def.update) return inOperation({ identity: op?.identity }, () => def.update!(ctx, id, olds, news));
      const seen = def.read ? await def.read(ctx, id, olds) : { id, props: olds };
      if (!seen.id) throw new Error(`${kind} ${id} no longer exists; run \`pulumi refresh\` to drop it from state, then \`pulumi up\` makes it again`);
      return { outs: seen.props ?? olds };
    });
  }

  invoke(fn: FunctionDefinition, args: Record<string, unknown>, op?: OperationOptions): Promise<Record<string, unknown>> {
    const r = new Redactor([...(this.config.apiKey ? [this.config.apiKey] : []), ...secretStrings(fn as Pick<ResourceDefinition, "secretOutputs">, args)]);
    return redacted(r, () => fn.invoke(this.context(op, r), args));
  }

  delete(kind: string, id: string, props: Record<string, unknown> | undefined, op?: OperationOptions): Promise<void> {
    const r = this.#redactor(kind, props);
    return redacted(r, async () => {
      const def = definition(kind);
      if (def.delete) await def.delete(this.context(op, r), id, props ?? {});
    });
  }
}

/**
 * An import id may end with `?omit=<input>,...`: the import leaves those inputs out of the state's
 * inputs, so out of the code `pulumi import` generates, while the outputs still report them (a
 * program that declares them as they are previews no change). cloudplatform-adopt leaves a
 * Service's secret env vars and files out this way, for the program to read them from config: the
 * import file's `properties` list, meant for this, does not filter inputs in this CLI release.
 * The suffix is read by importId.ts, which cloudplatform-adopt writes it with.
 */
function importOptions(def: ResourceDefinition, id: string): { bare: string; omit: string[] } {
  const parsed = parseImportId(id);
  const unknown = parsed.omit.filter((k) => !(k in def.inputs.shape));
  if (unknown.length) throw new Error(`import id '${id}': ?omit= names ${unknown.join(", ")}, not an input of ${def.token.split(":")[2]}`);
  return parsed;
}

/** Runs `fn`; whatever it throws leaves with keys and secret values redacted, keeping its kind. */
async function redacted<T>(r: Redactor, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const mask = (t: string) => r.redact(t);
    if (err instanceof ResourceInitError) {
      throw new ResourceInitError(mask(err.message), err.id, err.properties, err.reasons.map(mask));
    }
    const e = err as Error;
    throw new Error(mask(e?.message ?? String(err)));
  }
}
