// DNS record rules and normal forms, shared by DnsRecord, DnsRecordSet, the components and
// cloudplatform-adopt: names and values are normalised before they are compared, so the way a
// program spells a record (a full name or a relative one, a trailing dot, a quoted or split TXT
// value, letter case) never shows as drift.
import { isIP } from "node:net";
import { normaliseDomain } from "./dnsZone";
import type { CheckFailure, Rule } from "./framework";

// ---- normalisation ----
/** The TTLs the platform accepts, in seconds (check, and the policy pack's bounds). */
export const TTL_RANGE = { min: 60, max: 86_400 } as const;
/** A DMARC policy record's value (published at `_dmarc.<domain>`). */
export const DMARC_VALUE_RULE = /^v=DMARC1(;|\s|$)/i;

export const RECORD_TYPES = ["A", "AAAA", "ALIAS", "CAA", "CNAME", "MX", "NS", "SRV", "TXT"] as const;
const HOST_TYPES = new Set(["CNAME", "ALIAS", "NS", "MX"]);

export const normaliseType = (type: string) => type.trim().toUpperCase();

/**
 * `@` for the zone apex, else labels relative to the zone. A full name (with or without the
 * trailing dot) inside the zone becomes relative; without the zone name only case and the
 * trailing dot are normalised.
 */
export function normaliseName(name: string, zoneName?: string): string {
  const n = normaliseDomain(name);
  if (n === "" || n === "@") return "@";
  if (!zoneName) return n;
  const zone = normaliseDomain(zoneName);
  if (n === zone) return "@";
  if (n.endsWith(`.${zone}`)) return n.slice(0, -zone.length - 1);
  return n;
}

/** A record's full name: its name in the zone `zoneName`, or the full name it gives (no trailing dot, lowercase). */
export function fqdnOf(name: string, zoneName: string): string {
  if (isAbsolute(name)) return normaliseDomain(name);
  const rel = normaliseName(name, zoneName);
  const zone = normaliseDomain(zoneName);
  return rel === "@" ? zone : `${rel}.${zone}`;
}

/** True when `name` ends with a dot: written as a full name, so it must lie inside the zone. */
export const isAbsolute = (name: string) => name.trim().endsWith(".") && name.trim() !== ".";

/** A TXT value as resolvers return it: `"a" "b"` (quoted, maybe split) becomes `ab`. */
export function unquoteTxt(content: string): string {
  const t = content.trim();
  if (!/^".*"$/s.test(t)) return t;
  const parts = [...t.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1"));
  return parts.length ? parts.join("") : t;
}

export function normaliseContent(type: string, content: string): string {
  const t = normaliseType(type);
  const c = content.trim();
  if (t === "TXT") return unquoteTxt(c);
  if (HOST_TYPES.has(t)) return normaliseDomain(c);
  if (t === "AAAA") return c.toLowerCase();
  if (t === "SRV") {
    const parts = c.split(/\s+/);
    return parts.map((p, i) => (i === parts.length - 1 ? normaliseDomain(p) : p)).join(" ");
  }
  if (t === "CAA") {
    const m = /^(\d+)\s+(\S+)\s+(.*)$/.exec(c);
    return m ? `${m[1]} ${m[2].toLowerCase()} ${m[3].trim()}` : c;
  }
  return c;
}

export interface RecordSpec {
  name: string;
  type: string;
  content: string;
  ttl?: number;
  priority?: number;
}

/**
 * The canonical form of a record. An MX written as "10 mx.example.com" carries its priority in
 * the content; it is moved to `priority`.
 */
export function normaliseRecord<T extends RecordSpec>(r: T, zoneName?: string): T {
  const type = normaliseType(r.type);
  let content = r.content;
  let priority = r.priority;
  if (type === "MX" && priority === undefined) {
    const m = /^\s*(\d+)\s+(\S+)\s*$/.exec(content);
    if (m) {
      priority = Number(m[1]);
      content = m[2];
    }
  }
  const out = { ...r, name: normaliseName(r.name, zoneName), type, content: normaliseContent(type, content) };
  if (priority !== undefined) out.priority = priority;
  return out;
}

/** Identity of a record within a zone: name, type and normalised content. */
export const recordKey = (r: Pick<RecordSpec, "name" | "type" | "content">) => `${r.name}|${r.type}|${r.content}`;

/**
 * Input rules shared with DnsRecordSet (spec §2.1 V1DnsRecord and the record routes), one rule per
 * concern so each runs as soon as the properties it reads are known.
 */
export function recordRules(path: string): Rule<RecordSpec>[] {
  const fail = (property: string, reason: string): CheckFailure[] => [{ property: `${path}${property}`, reason: `${path}${property}: ${reason}` }];
  const HOST = /^(?=.{1,253}\.?$)([a-z0-9_*-]{1,63}\.)*[a-z0-9_-]{1,63}\.?$/i;
  return [
    (r) => ((RECORD_TYPES as readonly string[]).includes(normaliseType(r.type)) ? [] : fail("type", `must be one of ${RECORD_TYPES.join(", ")}; got '${r.type}'`)),
    (r) => {
      const type = normaliseType(r.type);
      return r.priority !== undefined && type !== "MX" && type !== "SRV" ? fail("priority", "only MX and SRV records take a priority") : [];
    },
    (r) => {
      // The platform's label rule: letters, digits, '-' and '_', 1 to 63 of them, no '-' at either end; '*' alone.
      const bare = r.name.trim().replace(/\.$/, "");
      const labels = bare.split(".");
      return r.name.trim() === "@" || (bare !== "" && labels.every((l) => l === "*" || /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/.test(l)))
        ? []
        : fail("name", "must be '@', a name relative to the zone (e.g. 'www' or 'sel._domainkey.mail') or a full name ending with '.': labels of 1 to 63 letters, digits, '-' or '_', not starting or ending with '-' ('*' alone)");
    },
    (r) => (normaliseType(r.type) === "CNAME" && r.name.trim() === "@" ? fail("name", "a CNAME cannot be placed at the zone apex ('@'); use an ALIAS record") : []),
    (r) => {
      const { type, content } = normaliseRecord({ type: r.type, content: r.content, name: "@", priority: r.priority });
      const c = content.trim();
      if (c === "") return fail("content", "must not be empty (a quoted or blank value holds nothing)");
      switch (type) {
        case "A":
          return isIP(c) === 4 ? [] : fail("content", `'${c}' is not an IPv4 address (an A record holds one, e.g. 203.0.113.10)`);
        case "AAAA":
          return isIP(c) === 6 ? [] : fail("content", `'${c}' is not an IPv6 address (an AAAA record holds one, e.g. 2001:db8::1)`);
        case "CNAME":
        case "ALIAS":
        case "NS":
        case "MX":
          return HOST.test(c) ? [] : fail("content", `'${c}' is not a host name (a ${type} record points to one)`);
        case "SRV":
          return /^\d+ \d+ \S+$/.test(c) ? [] : fail("content", "an SRV record is '<weight> <port> <target>' (the priority goes in priority)");
        case "CAA":
          return /^\d+ (issue|issuewild|iodef) \S+/i.test(c) ? [] : fail("content", `a CAA record is '<flags> <issue|issuewild|iodef> "<value>"'`);
        default:
          return [];
      }
    },
  ];
}

/** Every record rule over a record whose properties are all known. */
export function recordFailures(r: RecordSpec, path: string): CheckFailure[] {
  return recordRules(path).flatMap((rule) => rule(r));
}
