// Property values between the engine's protobuf Structs and the plain JSON handlers work on.
// The provider accepts secrets (the engine asks it of a provider that constructs components) but
// not resources or outputs: handlers see plain values, and each answer marks secret what the
// schema says is secret and whatever came from a secret input, as the engine itself does for a
// provider that does not accept secrets. Unknowns stay the engine's sentinel string, which is
// framework.UNKNOWN.
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { UNKNOWN } from "../resources/framework";

/** The engine's special-signature key and the signatures this module understands. */
export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
const OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4";

export type Props = Record<string, unknown>;

/** A request's Struct as plain JSON; a missing Struct is an empty object. */
export function fromStruct(s: Struct | undefined): Props {
  if (!s) return {};
  return unwrap(s.toJavaScript()) as Props;
}

function unwrap(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrap);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    switch (o[SIG]) {
      case SECRET_SIG:
        return unwrap(o.value);
      case RESOURCE_SIG:
        return unwrap(o.id ?? o.urn);
      case OUTPUT_SIG:
        return "value" in o ? unwrap(o.value) : UNKNOWN;
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrap(x)]));
  }
  return v;
}

/**
 * Plain JSON to a Struct for a response. Undefined values are dropped; the properties named in
 * `secrets` go back as secrets, so state encrypts them whichever SDK (or none, on import) made them;
 * and so does each property whose counterpart in `from` (the request's inputs or state) held a secret.
 */
export function toStruct(props: Props | undefined, secrets: readonly string[] = [], from?: Struct): Struct {
  const clean = JSON.parse(JSON.stringify(props ?? {})) as Props;
  for (const key of secrets) {
    if (key in clean && clean[key] !== null && clean[key] !== UNKNOWN) clean[key] = secret(clean[key]);
  }
  if (from) keepSecrets(clean, from.toJavaScript());
  return Struct.fromJavaScript(clean as Record<string, any>);
}

const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v) && !(SIG in v);
const isSecret = (v: unknown) => !!v && typeof v === "object" && (v as Props)[SIG] === SECRET_SIG;

/** True when a request value holds a secret anywhere in it. */
export function containsSecrets(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecrets);
  return !!v && typeof v === "object" && Object.values(v).some(containsSecrets);
}

/**
 * The engine's rule (annotateSecrets): an output whose input of the same name held a secret is
 * secret; where both are objects, the rule applies key by key, so one secret field does not hide
 * a whole structure. A list with a secret in it is secret as a whole.
 */
function keepSecrets(outs: Props, ins: Props): void {
  for (const [key, inValue] of Object.entries(ins)) {
    if (!(key in outs) || isSecret(outs[key])) continue;
    const out = outs[key];
    if (isObject(out) && isObject(inValue)) keepSecrets(out, inValue);
    else if (containsSecrets(inValue)) outs[key] = secret(out);
  }
}
