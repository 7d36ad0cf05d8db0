// Functions (data sources) the package offers: described once for schema.json, and implemented
// here for both the native plugin's Invoke and the dynamic SDK's in-process calls.
import type { z } from "zod";
import type { Context } from "./resources/framework";

export interface FunctionDefinition<A = any, R = any> {
  token: string;
  description: string;
  inputs: z.ZodObject<any>;
  outputs: z.ZodObject<any>;
  /** Output properties that are always secret. */
  secretOutputs?: string[];
  invoke(ctx: Context, args: A): Promise<R>;
}

export const functions: Record<string, FunctionDefinition> = {};

export function defineFunction<A = any, R = any>(name: string, def: FunctionDefinition<A, R>): FunctionDefinition<A, R> {
  functions[name] = def;
  return def;
}
