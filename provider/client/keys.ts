// API key shapes (conventions §5.2). A key is checked when the client is built, so a truncated
// key fails at start-up; no message ever includes the key itself.
import { InvalidApiKeyError } from "./errors";

export const KEY_KINDS = {
  svc_live_: "workspace key",
  svc_pat_: "platform token",
  mail_live_: "mail key",
  mail_test_: "sandbox mail key",
} as const;
export type KeyPrefix = keyof typeof KEY_KINDS;

/** Shortest body after the prefix that a real key has. */
export const MIN_KEY_BODY = 32;
const BODY = /^[A-Za-z0-9_-]+$/;

export function keyPrefix(key: string): KeyPrefix | undefined {
  return (Object.keys(KEY_KINDS) as KeyPrefix[]).find((p) => key.startsWith(p));
}

/** Throws InvalidApiKeyError unless `key` has a platform key's shape; returns its prefix. */
export function checkKeyShape(key: unknown): KeyPrefix {
  if (typeof key !== "string" || key.length === 0) {
    throw new InvalidApiKeyError("No API key: set cloudplatform:apiKey (as a secret) or CLOUDPLATFORM_API_KEY");
  }
  const trimmed = key.trim();
  if (trimmed !== key) {
    throw new InvalidApiKeyError("The API key has leading or trailing whitespace; copy it again without spaces or newlines");
  }
  const prefix = keyPrefix(key);
  const expected = `a ${Object.keys(KEY_KINDS).join(", ")} prefix followed by at least ${MIN_KEY_BODY} letters and digits`;
  if (!prefix) throw new InvalidApiKeyError(`The API key does not have the shape of a platform key: expected ${expected}`);
  const body = key.slice(prefix.length);
  if (body.length < MIN_KEY_BODY || !BODY.test(body)) {
    throw new InvalidApiKeyError(
      `The API key looks truncated or damaged: a ${KEY_KINDS[prefix]} (${prefix}) has at least ${MIN_KEY_BODY} letters and digits after its prefix, this one has ${body.length}`,
    );
  }
  return prefix;
}

/**
 * Replaces any platform key inside a text with its prefix and a mask, wherever it starts: an
 * echoed header may be URL-encoded (`Bearer%20svc_live_...`), with no word boundary before the key.
 */
export function redactKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, "$1***");
}
const KEY_IN_TEXT = new RegExp(`(${Object.keys(KEY_KINDS).join("|")})[A-Za-z0-9_-]+`, "g");

/** `scheme://user:pass@host` -> `scheme://***@host`, wherever a URL with credentials appears in a text. */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, "$1***@");
}
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"]+@/gi;

/** Loopback hosts: plain http to them never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}
