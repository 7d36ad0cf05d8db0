// The DNS zone and record rows, shared by the zone model (dns.ts) and the public resolver
// (public-dns.ts): both read them from here, so neither imports the other back.
import { isIP } from "node:net";
import type { Emu } from "../emu";

export const PLATFORM_NAMESERVERS = ["ns1.cloudplatform.test", "ns2.cloudplatform.test"];

export interface DnsZone {
  id: string;
  teamId: string;
  name: string;
  published: boolean;
  publishedAt: string | null;
  verifiedAt: string | null;
  verificationMethod: "LEGACY" | "NS" | "PURCHASE" | "TXT" | null;
  /** Secret part of the verification TXT value; the record itself is derived from it. */
  verificationToken: string;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export const RECORD_TYPES = ["A", "AAAA", "ALIAS", "CAA", "CNAME", "MX", "NS", "SRV", "TXT"] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export interface DnsRecord {
  id: string;
  zoneId: string;
  /** `@` for the apex, else labels relative to the zone, lowercase. */
  name: string;
  type: RecordType;
  content: string;
  ttl: number;
  priority: number | null;
  origin: "MAIL" | "SERVICE" | "USER";
  editable: boolean;
  /** What public DNS keeps answering until a change has propagated. */
  previous: { content: string; priority: number | null } | null;
  createdAt: string;
  updatedAt: string;
}

export const zoneRows = (emu: Emu) => emu.store.table<DnsZone>("dnsZones");
export const recordRows = (emu: Emu) => emu.store.table<DnsRecord>("dnsRecords");

/** A zone's records, oldest first; those at one name of a zone (group `zoneId name`); zones by owner and by name. */
export const recordsByZone = (emu: Emu) => recordRows(emu).index("zone", { group: (r) => r.zoneId, place: (r) => r.createdAt });
export const recordsByName = (emu: Emu) => recordRows(emu).index("name", { group: (r) => `${r.zoneId} ${r.name}`, place: (r) => r.createdAt });
export const zonesByTeam = (emu: Emu) => zoneRows(emu).index("team", { group: (z) => z.teamId });
export const zonesByName = (emu: Emu) => zoneRows(emu).index("name", { group: (z) => z.name });

/** Full name of a record of a zone. */
export const recordFqdn = (zoneName: string, name: string) => (name === "@" ? zoneName : `${name}.${zoneName}`);

/** Two-label public suffixes the platform knows; everything else is a one-label TLD. */
const TWO_LABEL_SUFFIXES = new Set(["co.uk", "org.uk", "ac.uk", "gov.uk", "com.ng", "org.ng", "gov.ng", "co.za", "org.za", "com.au", "co.nz", "com.br", "co.jp", "co.ke", "com.gh"]);

/** The registrable (organisational) domain: example.com for mail.example.com. */
export function organisationalDomain(name: string): string {
  const labels = name.split(".");
  const suffixLabels = labels.length >= 3 && TWO_LABEL_SUFFIXES.has(labels.slice(-2).join(".")) ? 2 : 1;
  return labels.slice(-(suffixLabels + 1)).join(".");
}

/** The value a TXT record carries: quoted strings (`"a" "b"`) are unquoted and joined. */
export function txtValue(content: string): string {
  const t = content.trim();
  if (!/^".*"$/s.test(t)) return t;
  const parts = [...t.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1"));
  return parts.length ? parts.join("") : t;
}

/** One label of a domain name: letters, digits, '-' and '_', not starting or ending with '-'. */
export const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const HOST_NAME = /^(?=.{1,253}\.?$)([a-z0-9_*-]{1,63}\.)*[a-z0-9_-]{1,63}\.?$/i;

/** Only these record types take a priority. */
export const takesPriority = (type: string) => type === "MX" || type === "SRV";

/** Why `content` (trimmed) cannot be the content of a record of this type; undefined when it can. */
export function contentProblem(type: string, content: string): string | undefined {
  switch (type) {
    case "A": return isIP(content) === 4 ? undefined : `'${content}' is not an IPv4 address`;
    case "AAAA": return isIP(content) === 6 ? undefined : `'${content}' is not an IPv6 address`;
    case "CNAME": case "ALIAS": case "NS": case "MX": return HOST_NAME.test(content) ? undefined : `'${content}' is not a host name`;
    case "SRV": return /^\d+ \d+ \S+$/.test(content) ? undefined : "an SRV record is '<weight> <port> <target>' (the priority goes in priority)";
    case "CAA": return /^\d+ (issue|issuewild|iodef) \S+/i.test(content) ? undefined : `a CAA record is '<flags> <issue|issuewild|iodef> "<value>"'`;
    default: return undefined;
  }
}
