// Reading zod's JSON Schema export, shared by the schema.json and SDK type generators.
import { z } from "zod";

export type Json = Record<string, any>;

/** zod writes `type: ["string", "null"]` for nullables; both generators read anyOf. */
export function normalize(js: Json): Json {
  if (Array.isArray(js.type)) {
    const { type, ...rest } = js;
    return { ...rest, anyOf: type.map((t: string) => ({ type: t, ...(t === "null" ? {} : pick(rest)) })) };
  }
  return js;
}

function pick(js: Json): Json {
  const { description: _d, secret: _s, knownValues: _k, ...rest } = js;
  return rest;
}

export const jsonOf = (schema: z.ZodType, io: "input" | "output"): Json =>
  z.toJSONSchema(schema, { unrepresentable: "any", io }) as Json;

export const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const article = (word: string) => (/^[AEIOU]/i.test(word) ? `an ${word}` : `a ${word}`);

/** zod gives every int() the safe-integer range, which is no rule of the platform's. */
const bound = (n: number | undefined) => (n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n);

/** The bounds the provider's check enforces, as zod exports them: a sentence, or "". */
export function limits(outer: Json): string {
  const js = outer.anyOf?.find((s: Json) => s.type !== "null") ?? outer;
  const range = (min: number | undefined, max: number | undefined, unit: string) =>
    min !== undefined && max !== undefined ? `${min} to ${max}${unit}` : max !== undefined ? `at most ${max}${unit}` : min !== undefined ? `at least ${min}${unit}` : "";
  const text =
    js.type === "string" ? range(js.minLength > 1 || js.maxLength !== undefined ? js.minLength : undefined, js.maxLength, " characters")
    : js.exclusiveMinimum !== undefined ? `more than ${js.exclusiveMinimum}${js.maximum !== undefined ? ` and at most ${js.maximum}` : ""}`
    : js.type === "integer" || js.type === "number" ? range(bound(js.minimum), bound(js.maximum), "")
    : js.type === "array" ? range(js.minItems, js.maxItems, js.maxItems === undefined && js.minItems === 1 ? " entry" : " entries")
    : "";
  return text ? `Limits: ${text}.` : "";
}
