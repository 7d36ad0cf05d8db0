// CORS as S3 applies a bucket's rules: the first rule whose origin, method and requested headers
// all match answers a preflight, and adds the CORS headers to the answers of real requests.
import type { CorsRule } from "../models/storage";
import { s3Error } from "./errors";

/**
 * `*` in a pattern stands for any run of characters. Matched by plain string search, never a RegExp
 * built from the bucket owner's text: the leftmost place for each part between stars is the right
 * one, so the work is linear in the pattern and the value.
 */
export function matches(pattern: string, value: string, ignoreCase: boolean): boolean {
  const [p, v] = ignoreCase ? [pattern.toLowerCase(), value.toLowerCase()] : [pattern, value];
  const parts = p.split("*");
  if (parts.length === 1) return p === v;
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (v.length < first.length + last.length || !v.startsWith(first) || !v.endsWith(last)) return false;
  let at = first.length;
  const end = v.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = v.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

export function corsRuleFor(rules: CorsRule[], origin: string, method: string, headers: string[] = []): CorsRule | undefined {
  return rules.find(
    (r) =>
      r.allowedOrigins.some((o) => matches(o, origin, false)) &&
      r.allowedMethods.includes(method) &&
      headers.every((h) => (r.allowedHeaders ?? []).some((a) => matches(a, h, true))),
  );
}

/** The headers S3 answers with for a matched rule. */
export function corsHeaders(rule: CorsRule, origin: string, requestedHeaders: string[] = []): Record<string, string> {
  const any = rule.allowedOrigins.includes("*");
  const out: Record<string, string> = {
    "access-control-allow-origin": any ? "*" : origin,
    "access-control-allow-methods": rule.allowedMethods.join(", "),
    vary: "Origin, Access-Control-Request-Headers, Access-Control-Request-Method",
  };
  if (!any) out["access-control-allow-credentials"] = "true";
  if (requestedHeaders.length) out["access-control-allow-headers"] = requestedHeaders.join(", ");
  if (rule.exposeHeaders?.length) out["access-control-expose-headers"] = rule.exposeHeaders.join(", ");
  if (rule.maxAgeSeconds !== null) out["access-control-max-age"] = String(rule.maxAgeSeconds);
  return out;
}

/** A browser's preflight (OPTIONS): the headers of the rule that allows it, or 403 naming what none allows. */
export function preflight(rules: CorsRule[], bucket: string, h: (name: string) => string | undefined): Record<string, string> {
  const origin = h("origin");
  const method = h("access-control-request-method");
  if (!origin || !method) {
    throw s3Error("BadRequest", "Insufficient information. Origin and Access-Control-Request-Method request headers are needed.");
  }
  const headers = (h("access-control-request-headers") ?? "").split(",").map((x) => x.trim().toLowerCase()).filter(Boolean);
  const rule = corsRuleFor(rules, origin, method, headers);
  if (!rule) {
    throw s3Error(
      "AccessForbidden",
      `CORSResponse: This CORS request is not allowed: no CORS rule of bucket '${bucket}' allows origin ${origin} with ${method}${headers.length ? ` and headers ${headers.join(", ")}` : ""}`,
      { Method: method, ResourceType: "OBJECT" },
    );
  }
  return corsHeaders(rule, origin, headers);
}
