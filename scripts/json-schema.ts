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
