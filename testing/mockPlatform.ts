// The platform the unit-test mocks stand in for, apart from any runtime: each new resource of
// either SDK goes through the provider's real `check` and gets the outputs the platform fills in;
// functions answer from what the test declares. setCloudPlatformMocks (TypeScript) installs it
// through pulumi.runtime.setMocks; the mocks server (mocksServer.ts) serves it to the Python SDK.
import { functions } from "../provider/functions";
import { loadAll, resources } from "../provider/resources";
import { listsOf } from "../provider/refresh";
import { envVarId } from "../provider/resources/envVar";
import { secretFileId } from "../provider/resources/secretFile";
import { kindOf } from "../policy/resources";
import { type Made, outputsOf, uuidFrom } from "./platform";

/** A function's answer: one object, a list to pick from by the call's arguments, or a function of them. */
export type FunctionAnswer =
  | Record<string, unknown>
  | Record<string, unknown>[]
  | ((args: Record<string, any>) => Record<string, unknown> | Promise<Record<string, unknown>>);

export interface MockPlatformOptions {
  project?: string;
  stack?: string;
  /** Answers of the functions, by name (`getProject`) or token. Objects the program makes answer too (getProject of its Project's id). */
  functions?: Record<string, FunctionAnswer>;
}

/** A resource registration, as the runtimes' mocks pass it. */
export interface NewResource {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  /** The import id, when the program imports the object. */
  id?: string;
  custom?: boolean;
}

export interface MockPlatform {
  /** The id and outputs of a new object; undefined for a type no cloudplatform resource has (another provider's). Throws check's message. */
  newResource(args: NewResource): Promise<{ id: string | undefined; state: Record<string, unknown> } | undefined>;
  /** A function's answer. Throws when its arguments are invalid or the test declared no answer. */
  call(token: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Every cloudplatform object made so far. */
  made(): (Made & { name: string; type: string })[];
}

/** The ids the platform gives: its own uuids, and the natural keys some kinds use as their id. */
function idOf(kind: string, identity: string, inputs: Record<string, any>): string {
  switch (kind) {
    case "Bucket":
      return inputs.name;
    case "EnvVar":
      return envVarId(inputs.serviceId, inputs.key);
    case "SecretFile":
      return secretFileId(inputs.serviceId, inputs.path);
    case "Suppression":
      return inputs.address;
    case "DnsZoneVerification":
      return inputs.zoneId;
    case "MailDomainVerification":
    case "CustomDomainVerification":
      return inputs.domainId;
    default:
      return uuidFrom(identity);
  }
}

/** The provider's check over a resource's inputs: the checked inputs, or an error with check's reasons. */
export async function checkInputs(type: string, name: string, inputs: Record<string, unknown>, identity: string): Promise<Record<string, unknown>> {
  const kind = kindOf(type)!;
  const def = resources[kind];
  const { __provider: _p, __identity, ...news } = inputs;
  const who = { name: typeof news.__logicalName === "string" ? news.__logicalName : name, identity: typeof __identity === "string" ? __identity : identity };
  // The dynamic SDK sends keyed lists (a Service's env vars) as maps by key; check takes lists.
  const r = def.check ? await def.check({}, listsOf(def, news), who) : { inputs: news };
  if (r.failures?.length) throw new Error(`${type} resource '${name}' has a problem: ${r.failures.map((f) => f.reason).join("; ")}`);
  return r.inputs as Record<string, unknown>;
}

export function createMockPlatform(opts: MockPlatformOptions = {}): MockPlatform {
  loadAll();
  const project = opts.project ?? "project";
  const stack = opts.stack ?? "stack";
  const made: (Made & { name: string; type: string })[] = [];
  const all = (kind: string) => made.filter((m) => m.kind === kind);
  const world = { find: (id: unknown) => made.find((m) => m.id === id), all };

  /** An object the program made answers the function that looks it up by id or name. */
  function fromMade(fn: string, args: Record<string, any>): Record<string, unknown> | undefined {
    const kind = { getProject: "Project", getEnvironment: "Environment", getService: "Service", getBucket: "Bucket", getDnsZone: "DnsZone", getMailDomain: "MailDomain" }[fn];
    const m = kind ? all(kind).find((o) => matches(fn, { id: o.id, ...o.outputs }, args)) : undefined;
    return m && { id: m.id, ...m.outputs };
  }

  return {
    async newResource(args) {
      const kind = kindOf(args.type);
      if (!kind) return undefined;
      // Components (VerifiedMailDomain...) make their parts as resources of their own.
      if (!(kind in resources)) return { id: args.custom ? `${args.name}_id` : undefined, state: args.inputs };
      const identity = `${project}/${stack}/cloudplatform:${kind}::${args.name}`;
      const { plain, secret } = unwrapSecrets(args.inputs);
      const inputs = await checkInputs(args.type, args.name, plain, identity);
      const id = args.id || idOf(kind, identity, inputs);
      const outputs = outputsOf(kind, id, inputs, world);
      made.push({ kind, id, outputs, name: args.name, type: args.type });
      // A secret input stays secret in the outputs.
      const state = { ...outputs, ...Object.fromEntries(secret.filter((k) => k in outputs).map((k) => [k, { [SIG]: SECRET, value: outputs[k] }])) };
      return { id, state };
    },
    async call(token, args) {
      const name = token.split(":").pop()!;
      const def = functions[name];
      if (!def) throw new Error(`cloudplatform: unknown function ${token}`);
      const parsed = def.inputs.safeParse(args ?? {});
      if (!parsed.success) throw failure(`${name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "args"}: ${i.message}`).join("; ")}`);
      const given = opts.functions?.[name] ?? opts.functions?.[token];
      const found = given === undefined ? fromMade(name, parsed.data) : typeof given === "function" ? await given(parsed.data) : Array.isArray(given) ? given.find((o) => matches(name, o, parsed.data)) : given;
      if (!found) {
        throw failure(`${name}(${JSON.stringify(parsed.data)}): no answer; declare it in setCloudPlatformMocks({ functions: { ${name}: ... } })`);
      }
      // Every output the function declares is there, null when the answer leaves it out.
      return { ...Object.fromEntries(Object.keys(def.outputs.shape).map((k) => [k, null])), ...found };
    },
    made: () => [...made],
  };
}

/** An error as the engine sends it: the runtime reads an invoke's error from `details`. */
const failure = (message: string) => Object.assign(new Error(message), { details: message });

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const isSecretValue = (v: unknown): v is { value: unknown } => !!v && typeof v === "object" && (v as Record<string, unknown>)[SIG] === SECRET;
/** Inputs with secrets unwrapped (check sees plain values), and the top-level keys that were secret. */
function unwrapSecrets(inputs: Record<string, unknown>): { plain: Record<string, unknown>; secret: string[] } {
  const unwrap = (v: unknown): unknown =>
    isSecretValue(v) ? unwrap(v.value) : Array.isArray(v) ? v.map(unwrap) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrap(x)])) : v;
  return { plain: unwrap(inputs) as Record<string, unknown>, secret: Object.keys(inputs).filter((k) => isSecretValue(inputs[k])) };
}

/** Own ids by function: getProject's projectId is the project's id. */
const OWN_ID: Record<string, string> = { getProject: "projectId", getEnvironment: "environmentId", getService: "serviceId", getMailDomain: "domainId" };
function matches(fn: string, o: Record<string, unknown>, args: Record<string, unknown>): boolean {
  return Object.entries(args).every(([k, v]) => v === undefined || (k === OWN_ID[fn] ? o.id === v || o[k] === v : !(k in o) || o[k] === v));
}
