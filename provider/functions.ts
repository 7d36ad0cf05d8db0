// Functions (data sources) the package offers, described once for schema.json. The SDK's
// implementations live in sdk/*Functions.ts and call the same client.
import type { z } from "zod";

export interface FunctionDefinition {
  token: string;
  description: string;
  inputs: z.ZodObject<any>;
  outputs: z.ZodObject<any>;
}

export const functions: Record<string, FunctionDefinition> = {};

export function defineFunction(name: string, def: FunctionDefinition): FunctionDefinition {
  functions[name] = def;
  return def;
}
