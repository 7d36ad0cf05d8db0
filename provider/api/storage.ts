// Response shapes of the storage routes (infrastructure routes §2.6, §4.8). Loose objects: unknown
// fields are kept and enumerations are open. Two bodies are "not shown" in the spec, so their
// readers accept the obvious alternatives: CORS rules as a page, a bare array or `{rules}`; the
// policy as `{policy}`, a bare string, the document itself or null.
import { z } from "zod";

export const V1StorageBucket = z.looseObject({
  name: z.string(),
  region: z.union([z.string(), z.looseObject({ key: z.string() }).transform((r) => r.key)]).nullish(),
  endpoint: z.string().nullish(),
  publicBaseUrl: z.string().nullish(),
  visibility: z.string().nullish(),
  createdAt: z.string().nullish(),
});
export type V1StorageBucket = z.infer<typeof V1StorageBucket>;

export const V1StorageAccessKey = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  accessKeyId: z.string(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type V1StorageAccessKey = z.infer<typeof V1StorageAccessKey>;

export const V1CorsRule = z.looseObject({
  allowedMethods: z.array(z.string()).default([]),
  allowedOrigins: z.array(z.string()).default([]),
  allowedHeaders: z.array(z.string()).nullish(),
  exposeHeaders: z.array(z.string()).nullish(),
  maxAgeSeconds: z.number().nullish(),
});
export type V1CorsRule = z.infer<typeof V1CorsRule>;

/** The rules of GET …/cors: a cursor page (the spec), a bare array, or `{rules}`. */
export const CorsResponse = z.unknown().transform((raw, ctx): V1CorsRule[] => {
  const o = raw as Record<string, unknown> | null;
  const items = Array.isArray(raw) ? raw : Array.isArray(o?.data) ? o.data : Array.isArray(o?.rules) ? o.rules : Array.isArray(o?.items) ? o.items : raw == null ? [] : undefined;
  if (!items) {
    ctx.addIssue({ code: "custom", message: "expected a page of CORS rules, an array, or {rules}" });
    return z.NEVER;
  }
  const r = z.array(V1CorsRule).safeParse(items);
  if (!r.success) {
    for (const issue of r.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  }
  return r.data;
});

/** GET …/policy: `{policy: string | null}` (V1BucketPolicy), a bare JSON string, the document object, or null. */
export const PolicyResponse = z.unknown().transform((raw): string | null => {
  if (raw === null || raw === undefined || raw === "") return null;
  if (typeof raw === "string") return raw;
  if (typeof raw === "object" && !Array.isArray(raw) && "policy" in raw) {
    const p = (raw as { policy: unknown }).policy;
    if (p === null || p === undefined || p === "") return null;
    return typeof p === "string" ? p : JSON.stringify(p);
  }
  return JSON.stringify(raw);
});
