// Bucket input rules and normal forms: CORS rules, canonical policy JSON and generated names, kept
// apart from bucket.ts so the handlers stay readable.
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";

export const CORS_METHODS = ["GET", "PUT", "POST", "DELETE", "HEAD"] as const;
/** Methods that only read: what a rule open to any origin ('*') should be limited to. */
export const READ_ONLY_CORS_METHODS = ["GET", "HEAD"] as const;
export const isWildcardOrigin = (origin: string) => origin.trim() === "*";
/** The methods of a rule open to any origin that do more than read (none when the rule names its origins). */
export function writeMethodsOpenToAnyOrigin(rule: { allowedMethods?: string[]; allowedOrigins?: string[] }): string[] {
  if (!(rule.allowedOrigins ?? []).some(isWildcardOrigin)) return [];
  return normaliseRules([rule])[0].allowedMethods.filter((m) => !(READ_ONLY_CORS_METHODS as readonly string[]).includes(m));
}

export const corsRule = z.object({
  allowedMethods: z.array(
    z.string({ error: "must be a string" })
      .refine((m) => (CORS_METHODS as readonly string[]).includes(m), `must be one of ${CORS_METHODS.join(", ")}`)
      .meta({ knownValues: [...CORS_METHODS] }),
  )
    .min(1, "must list at least one method")
    .describe(`HTTP methods the rule allows: ${CORS_METHODS.join(", ")}.`),
  allowedOrigins: z.array(z.string().min(1, "must not be empty"))
    .min(1, "must list at least one origin")
    .describe("Origins the rule allows, e.g. https://app.example.com or *."),
  allowedHeaders: z.array(z.string()).nullish().describe("Request headers a preflight may ask for."),
  exposeHeaders: z.array(z.string()).nullish().describe("Response headers the browser may read."),
  maxAgeSeconds: z.number().int("must be an integer").min(0, "must not be negative").nullish()
    .describe("How long a browser may cache the preflight answer, in seconds."),
}).meta({ typeName: "CorsRule" });
export interface CorsRule {
  allowedMethods: string[];
  allowedOrigins: string[];
  allowedHeaders: string[] | null;
  exposeHeaders: string[] | null;
  maxAgeSeconds: number | null;
}

/** One shape for every rule (nulls for what is unset), so the API's echo is never a false change. */
type LooseRule = { allowedMethods?: string[]; allowedOrigins?: string[]; allowedHeaders?: string[] | null; exposeHeaders?: string[] | null; maxAgeSeconds?: number | null };
export function normaliseRules(rules: LooseRule[]): CorsRule[] {
  return rules.map((r) => ({
    allowedMethods: (r.allowedMethods ?? []).map((m) => m.toUpperCase()),
    allowedOrigins: [...(r.allowedOrigins ?? [])],
    allowedHeaders: r.allowedHeaders?.length ? [...r.allowedHeaders] : null,
    exposeHeaders: r.exposeHeaders?.length ? [...r.exposeHeaders] : null,
    maxAgeSeconds: r.maxAgeSeconds ?? null,
  }));
}

/** JSON with object keys sorted at every level and no whitespace: key order and spacing are not changes. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

/** A policy the API returned, in canonical form; text that is not JSON is kept as it is. */
export function canonicalPolicy(text: string | null): string | null {
  if (text === null) return null;
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}

const SUFFIX = 7;

/**
 * A bucket name from a logical name: lowercased, anything outside the name rule turned into '-',
 * cut so that '-' plus a random suffix still fits in 63 characters. With a seed, the suffix is
 * drawn from it (the same seed, the same name); without one, at random.
 */
export function autoName(logical: string, seed?: Uint8Array | string): string {
  const base = logical
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .slice(0, 63 - SUFFIX - 1)
    .replace(/^[.-]+|[.-]+$/g, "");
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = seed === undefined || seed.length === 0 ? randomBytes(SUFFIX) : createHash("sha256").update(seed).digest();
  const suffix = [...bytes.subarray(0, SUFFIX)].map((b) => alphabet[b % alphabet.length]).join("");
  return `${base || "bucket"}-${suffix}`;
}
