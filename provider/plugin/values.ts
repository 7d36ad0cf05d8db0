// Property values between the engine's protobuf Structs and the plain JSON handlers work on.
// The provider tells the engine it does not accept secrets, resources or outputs, so what arrives
// is plain; envelopes are still unwrapped defensively. Unknowns stay the engine's sentinel string,
// which is framework.UNKNOWN.
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
 * `secrets` go back as secrets, so state encrypts them whichever SDK (or none, on import) made them.
 */
export function toStruct(props: Props | undefined, secrets: readonly string[] = []): Struct {
  const clean = JSON.parse(JSON.stringify(props ?? {})) as Props;
  for (const key of secrets) {
    if (key in clean && clean[key] !== null && clean[key] !== UNKNOWN) clean[key] = { [SIG]: SECRET_SIG, value: clean[key] };
  }
  return Struct.fromJavaScript(clean as Record<string, any>);
}
