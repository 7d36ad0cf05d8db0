// The dashboard's live request log: the last requests the emulator answered, in a bounded ring
// buffer. It keeps no header and no body; the path's query values that can carry a credential
// (presigned signatures, tokens) and anything shaped like a platform key are masked.
import { TOKEN_PREFIX } from "./auth";

export interface RequestEntry {
  /** Increases by one per request; the dashboard asks for the entries after the last it saw. */
  seq: number;
  /** Wall-clock time the answer left (not the emulator clock, which tests move). */
  at: string;
  method: string;
  path: string;
  /** The route pattern that answered (`/v1/projects/:projectId`), or null when none matched. */
  route: string | null;
  status: number;
  ms: number;
  requestId: string;
  /** The kind of credential sent (`svc_live`, `mail_test`, `session`, `sigv4`...), never the credential. */
  credential: string | null;
}

export type RequestInput = Omit<RequestEntry, "seq" | "at" | "path" | "credential"> & { url: string; authorization?: string };

const BEARER_KINDS = Object.entries(TOKEN_PREFIX).map(([kind, prefix]) => [prefix, kind] as const);
const KEY_SHAPED = new RegExp(`(${Object.values(TOKEN_PREFIX).join("|")})[A-Za-z0-9_-]+`, "g");
/** Query parameters whose value can be a credential: by a word of their name (`X-Amz-Signature`, `api_key`), not `max-keys`. */
const SECRET_WORD = /signature|token|secret|passw|credential/i;
const SECRET_PART = new Set(["sig", "key", "apikey", "auth", "authorization", "session", "code"]);
const secretParam = (name: string) => SECRET_WORD.test(name) || name.toLowerCase().split(/[-_.]/).some((p) => SECRET_PART.has(p));
const MASK = "***";

/** The URL as the log shows it: query values with credential-like names masked, key-shaped text masked. */
export function safePath(url: string): string {
  const at = url.indexOf("?");
  const path = at < 0 ? url : url.slice(0, at);
  const query = at < 0 ? "" : url.slice(at + 1);
  const masked = query
    .split("&")
    .filter((p) => p !== "")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch { /* shown as sent */ }
      return eq >= 0 && secretParam(decoded) ? `${name}=${MASK}` : pair;
    })
    .join("&");
  return (masked ? `${path}?${masked}` : path).replace(KEY_SHAPED, `$1${MASK}`);
}

/** What kind of credential a request carried, from the shape of its Authorization header. */
export function credentialKind(authorization: string | undefined, url: string): string | null {
  if (authorization) {
    const value = authorization.trim();
    if (/^AWS4-HMAC-SHA256\b/i.test(value)) return "sigv4";
    const bearer = /^Bearer\s+(\S+)/i.exec(value)?.[1];
    if (bearer) return BEARER_KINDS.find(([prefix]) => bearer.startsWith(prefix))?.[1] ?? "bearer";
    return value.split(/\s+/)[0].toLowerCase() || null;
  }
  if (/[?&]X-Amz-Signature=/i.test(url)) return "presigned";
  return null;
}

export class RequestLog {
  /** A fixed-size circular buffer: `slots[(seq - 1) % capacity]` holds entry `seq`. */
  private readonly slots: (RequestEntry | undefined)[];
  private next = 1;

  constructor(readonly capacity = 1_000) {
    this.slots = new Array(capacity);
  }

  add(input: RequestInput): void {
    const { url, authorization, ...rest } = input;
    const seq = this.next++;
    this.slots[(seq - 1) % this.capacity] = {
      seq,
      at: new Date().toISOString(),
      ...rest,
      path: safePath(url),
      credential: credentialKind(authorization, url),
      ms: Math.round(input.ms * 10) / 10,
    };
  }

  /** Entries after `seq`, oldest first, at most `limit` (the newest ones when there are more). */
  since(seq: number, limit = this.capacity): RequestEntry[] {
    const oldest = Math.max(1, this.next - this.capacity, seq + 1, this.next - Math.max(0, limit));
    const out: RequestEntry[] = [];
    for (let s = oldest; s < this.next; s++) {
      const e = this.slots[(s - 1) % this.capacity];
      if (e?.seq === s) out.push(e);
    }
    return out;
  }

  /** The seq of the newest entry (0 when none was ever logged). */
  get last(): number {
    return this.next - 1;
  }
}
