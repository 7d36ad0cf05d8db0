// Mail sending domains, their DNS records and verification, suppressions and the mail key list
// (conventions §2.6-2.7, §3.2, §4.8-4.9). Adding a domain gives it a DKIM public key; only verify
// resolves DNS (through the simulated public DNS), a plain read leaves the checks null.
import { createPublicKey, randomBytes } from "node:crypto";
import { z } from "zod";
import type { ApiKey, Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { badRequest, conflict, notFound } from "../errors";
import { newId } from "../store";
import { domainName, isApex, organisationalDomain, within, zonesOf } from "./dns";
import { checkRegion } from "./projects";
import { type Answer, resolve } from "./public-dns";

export const SPF_INCLUDE = "_spf.mail.cloudplatform.test";
export const SPF_VALUE = `v=spf1 include:${SPF_INCLUDE} ~all`;
export const DMARC_VALUE = "v=DMARC1; p=none;";
export const mxHost = (region: string) => `inbound-smtp.${region}.mail.cloudplatform.test`;
export const FIRST_DAY_QUOTA = 200;
export const MAX_DAILY_QUOTA = 50_000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface MailDomain {
  id: string;
  workspaceId: string;
  name: string;
  region: string;
  status: "BROKEN" | "PENDING" | "SUSPENDED" | "VERIFIED";
  dailyQuota: number;
  dkimSelector: string;
  /** Base64 DER (SubjectPublicKeyInfo) of the RSA public key, as published in the DKIM record. */
  dkimPublicKey: string;
  failingRecords: string[] | null;
  lastCheckedAt: string | null;
  verifiedAt: string | null;
  suspendedAt: string | null;
  suspendedReason: string | null;
  alignmentWarning: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Suppression {
  id: string;
  workspaceId: string;
  address: string;
  reason: "manual" | "unsubscribe" | "bounce" | "complaint";
  createdAt: string;
}

export const createDomainBody = z.object({
  name: z.string({ error: "must be a string (the sending domain, e.g. mail.example.com)" }),
  region: z.string({ error: "must be a string region key" }).optional(),
});
export const createSuppressionBody = z
  .looseObject({ address: z.email({ error: "must be an email address" }) })
  .superRefine((b, ctx) => {
    if ("reason" in b) ctx.addIssue({ code: "custom", path: ["reason"], message: "is never accepted: the platform sets the reason; suppressions added through the API are manual" });
  });

const domains = (emu: Emu) => emu.store.table<MailDomain>("mailDomains");
const suppressions = (emu: Emu) => emu.store.table<Suppression>("mailSuppressions");

// ---- scopes of the short routes (§4.8, §5.5) ----
/**
 * The short routes need EMAIL_SEND and PLATFORM_API together; a sandbox key reads them (§4.3 rule 5)
 * and the route's own scope rule already refused its changes.
 */
/** The workspace a short route acts in: ?workspaceId=, else the key's own, else the only one it reaches. */
export function shortRouteWorkspace(who: Principal, query: Record<string, unknown>): Workspace {
  const wanted = typeof query.workspaceId === "string" && query.workspaceId ? query.workspaceId : who.key.workspaceId;
  if (wanted) return who.workspace(wanted);
  const all = who.memberships();
  if (all.length === 1) return who.workspace(all[0].workspaceId);
  throw badRequest(`workspaceId: this key reaches ${all.length} workspaces; pass ?workspaceId=<id>`);
}

// ---- domains ----
/** The rules of a create body that read no state; each failure is a 400 naming the field. Returns the domain's name. */
export function checkDomainBody(input: z.infer<typeof createDomainBody>): string {
  const name = domainName(input.name);
  checkRegion(input.region);
  return name;
}

/**
 * An RSA 2048 public key, base64 DER SubjectPublicKeyInfo, as a DKIM record publishes it. The
 * emulator signs nothing (the sandbox records messages), so it makes no private key: the modulus
 * is random. A real key pair cost about 170 ms of CPU per domain, a few percent of the test suite.
 */
function dkimPublicKey(): string {
  const n = randomBytes(256);
  n[0] |= 0x80; // 2048 bits exactly
  n[255] |= 1;
  const key = createPublicKey({ key: { kty: "RSA", n: n.toString("base64url"), e: "AQAB" }, format: "jwk" });
  return key.export({ type: "spki", format: "der" }).toString("base64");
}

export function addDomain(emu: Emu, ws: Workspace, input: z.infer<typeof createDomainBody>): MailDomain {
  const name = checkDomainBody(input);
  const clash = domains(emu).find((d) => d.workspaceId === ws.id && d.name === name);
  if (clash) throw conflict(`name: this workspace already has the sending domain ${name} (domain ${clash.id})`);
  const now = emu.now();
  return domains(emu).insert({
    id: newId(),
    workspaceId: ws.id,
    name,
    region: input.region ?? ws.defaultRegion ?? emu.settings.defaultRegion,
    status: "PENDING",
    dailyQuota: 0,
    dkimSelector: `cp${randomBytes(3).toString("hex")}`,
    dkimPublicKey: dkimPublicKey(),
    failingRecords: null,
    lastCheckedAt: null,
    verifiedAt: null,
    suspendedAt: null,
    suspendedReason: null,
    alignmentWarning: null,
    createdAt: now,
    updatedAt: now,
  });
}

export function getDomain(emu: Emu, who: Principal, id: string, workspaceId?: string): MailDomain {
  const d = domains(emu).get(id);
  if (!d || !who.canSee(d.workspaceId) || (workspaceId && d.workspaceId !== workspaceId)) throw notFound("Mail domain", id);
  return withQuota(emu, d);
}

export const domainsOf = (emu: Emu, ws: Workspace) =>
  domains(emu).where((d) => d.workspaceId === ws.id).sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((d) => withQuota(emu, d));

// ---- the daily send quota (§8) ----
/**
 * The quota day a verified domain is in: day 0 starts at verifiedAt. The ceiling starts at 200 and
 * doubles per full day, up to 50,000; every day is clean in the emulator (real sends always deliver).
 */
export function quotaDay(emu: Emu, d: MailDomain): { quota: number; startMs: number; endMs: number } | undefined {
  if (!d.verifiedAt) return undefined;
  const since = Date.parse(d.verifiedAt);
  const days = Math.max(0, Math.floor((emu.clock.now() - since) / DAY_MS));
  const startMs = since + days * DAY_MS;
  return { quota: Math.min(MAX_DAILY_QUOTA, FIRST_DAY_QUOTA * 2 ** Math.min(days, 16)), startMs, endMs: startMs + DAY_MS };
}

/** The stored dailyQuota follows the emulator clock on every read. */
function withQuota(emu: Emu, d: MailDomain): MailDomain {
  const day = quotaDay(emu, d);
  if (day && day.quota !== d.dailyQuota) d.dailyQuota = day.quota;
  return d;
}

export function removeDomain(emu: Emu, d: MailDomain): void {
  domains(emu).delete(d.id);
}

// ---- the records to publish ----
export interface MailRecord {
  name: "DKIM" | "SPF" | "MX" | "DMARC";
  type: "TXT" | "MX";
  host: string;
  fqdn: string;
  zoneHost: string | null;
  value: string;
  priority: number | null;
  required: boolean;
  verified: boolean | null;
  problem: string | null;
}

/** The zone the records go in: the longest zone of the workspace holding the domain, else the registrable domain. */
export function zoneOf(emu: Emu, d: MailDomain) {
  const zone = zonesOf(emu, d.workspaceId).filter((z) => within(d.name, z.name)).sort((a, b) => b.name.length - a.name.length)[0];
  return zone
    ? { name: zone.name, dnsZoneId: zone.id, hostedOnPlatform: true }
    : { name: organisationalDomain(d.name), dnsZoneId: null, hostedOnPlatform: false };
}

/** DKIM, SPF, MX (never for an apex), DMARC: in this order, always. */
export function recordsFor(emu: Emu, d: MailDomain): MailRecord[] {
  const zone = zoneOf(emu, d);
  const rec = (name: MailRecord["name"], type: MailRecord["type"], host: string, value: string, priority: number | null, required: boolean): MailRecord => {
    const fqdn = host === "@" ? d.name : `${host}.${d.name}`;
    const zoneHost = !within(fqdn, zone.name) ? null : fqdn === zone.name ? "@" : fqdn.slice(0, -zone.name.length - 1);
    return { name, type, host, fqdn, zoneHost, value, priority, required, verified: null, problem: null };
  };
  const out = [
    rec("DKIM", "TXT", `${d.dkimSelector}._domainkey`, `v=DKIM1; k=rsa; p=${d.dkimPublicKey}`, null, true),
    rec("SPF", "TXT", "@", SPF_VALUE, null, true),
  ];
  if (!isApex(d.name)) out.push(rec("MX", "MX", "@", mxHost(d.region), 10, true));
  out.push(rec("DMARC", "TXT", "_dmarc", DMARC_VALUE, null, false));
  return out;
}

// ---- verify ----
const canonTxt = (v: string) => v.replace(/\s+/g, "").replace(/;+$/, "").toLowerCase();
const short = (v: string, max = 72) => (v.length > max ? `${v.slice(0, max)}...` : v);
const quoteList = (as: Answer[]) => as.map((a) => `'${short(a.value)}'`).join(", ");

interface Check {
  ok: boolean;
  /** A value is there, but a wrong one. */
  wrong: boolean;
  problem: string | null;
}

function checkRecord(emu: Emu, r: MailRecord, pending: boolean): Check {
  const opts = { includePending: pending };
  if (r.name === "MX") {
    const found = resolve(emu, r.fqdn, "MX", opts);
    if (found.some((a) => a.value === r.value)) return { ok: true, wrong: false, problem: null };
    if (!found.length) return { ok: false, wrong: false, problem: `no MX record found at ${r.fqdn}; expected '${r.value}' (priority ${r.priority})` };
    return { ok: false, wrong: true, problem: `found MX ${found.map((a) => `'${a.priority} ${a.value}'`).join(", ")} at ${r.fqdn}, expected '${r.priority} ${r.value}'` };
  }
  const txt = resolve(emu, r.fqdn, "TXT", opts);
  if (r.name === "SPF") {
    const spf = txt.filter((a) => /^v=spf1(\s|$)/i.test(a.value));
    if (!spf.length) return { ok: false, wrong: false, problem: `no SPF record (a TXT record starting with v=spf1) found at ${r.fqdn}; expected '${r.value}'` };
    if (spf.length > 1) return { ok: false, wrong: true, problem: `${spf.length} SPF records found at ${r.fqdn} (${quoteList(spf)}); there must be exactly one: merge them into '${r.value}'` };
    if (!new RegExp(`(^|\\s)[+]?include:${SPF_INCLUDE.replace(/\./g, "\\.")}(\\s|$)`, "i").test(spf[0].value)) {
      return { ok: false, wrong: true, problem: `found '${spf[0].value}' at ${r.fqdn}, expected '${r.value}' (the SPF record must include ${SPF_INCLUDE})` };
    }
    return { ok: true, wrong: false, problem: null };
  }
  if (r.name === "DMARC") {
    const dmarc = txt.filter((a) => /^v=DMARC1/i.test(a.value));
    if (dmarc.length) return { ok: true, wrong: false, problem: null };
    return { ok: false, wrong: false, problem: `no DMARC record found at ${r.fqdn} (recommended, not required); suggested '${r.value}'` };
  }
  // DKIM: the exact value, ignoring spacing.
  if (txt.some((a) => canonTxt(a.value) === canonTxt(r.value))) return { ok: true, wrong: false, problem: null };
  if (!txt.length) return { ok: false, wrong: false, problem: `no TXT record found at ${r.fqdn}; expected '${short(r.value)}' (the full value is in this record's value)` };
  return { ok: false, wrong: true, problem: `found ${quoteList(txt)} at ${r.fqdn}, expected '${short(r.value)}' (the public key differs; copy the full value)` };
}

/** The DMARC policy that applies to the domain: its own record, else the organisational domain's. */
function alignmentWarning(emu: Emu, d: MailDomain): string | null {
  const own = resolve(emu, `_dmarc.${d.name}`, "TXT").find((a) => /^v=DMARC1/i.test(a.value));
  const org = organisationalDomain(d.name);
  const orgRec = own || org === d.name ? undefined : resolve(emu, `_dmarc.${org}`, "TXT").find((a) => /^v=DMARC1/i.test(a.value));
  const rec = own ?? orgRec;
  if (!rec) return null;
  const tags = Object.fromEntries(rec.value.split(";").map((t) => t.trim().split("=").map((x) => x.trim().toLowerCase())).filter((kv) => kv.length === 2));
  const policy = own ? tags.p : (tags.sp ?? tags.p);
  const strict = [tags.aspf === "s" ? "aspf=s" : "", tags.adkim === "s" ? "adkim=s" : ""].filter(Boolean);
  if ((policy !== "quarantine" && policy !== "reject") || !strict.length) return null;
  return (
    `The DMARC policy at ${rec.name} (p=${policy}; ${strict.join("; ")}) requires strict alignment: mail from ${d.name} leaves with the platform's ` +
    `return path and is signed for ${d.name}, so under this policy it fails DMARC and is ${policy === "reject" ? "rejected" : "sent to spam"}. ` +
    `Use relaxed alignment (aspf=r; adkim=r) or publish a DMARC record of its own at _dmarc.${d.name}.`
  );
}

/** Re-checks DNS now: per-record flags, failingRecords, lastCheckedAt, status and the quota. */
export function verifyDomain(emu: Emu, d: MailDomain) {
  const records = recordsFor(emu, d);
  let anyWrong = false;
  const failing: MailRecord[] = [];
  let allPending = true;
  for (const r of records) {
    const c = checkRecord(emu, r, false);
    r.verified = c.ok;
    r.problem = c.problem;
    if (c.ok || !r.required) continue;
    failing.push(r);
    const later = checkRecord(emu, r, true);
    if (later.ok) r.problem = `the right record is published but not visible in public DNS yet (still propagating); now: ${c.problem}`;
    else {
      allPending = false;
      if (c.wrong) anyWrong = true;
    }
  }
  const now = emu.now();
  const patch: Partial<MailDomain> = {
    lastCheckedAt: now,
    failingRecords: failing.map((r) => r.name),
    alignmentWarning: alignmentWarning(emu, d),
    updatedAt: now,
  };
  if (d.status !== "SUSPENDED") {
    if (!failing.length) {
      patch.status = "VERIFIED";
      patch.verifiedAt = d.verifiedAt ?? now;
      patch.dailyQuota = quotaDay(emu, { ...d, verifiedAt: patch.verifiedAt })!.quota;
    } else {
      // BROKEN: a domain that was verified fails again, or a record is there with a wrong value.
      patch.status = d.verifiedAt || anyWrong ? "BROKEN" : "PENDING";
    }
  }
  const updated = domains(emu).update(d.id, patch);
  emu.log({
    kind: "mail", msg: `domain ${d.name} verified: ${updated.status}${failing.length ? ` (failing: ${failing.map((r) => r.name).join(", ")})` : ""}`,
    event: "domain.verify", domainId: d.id, domain: d.name, status: updated.status, failingRecords: failing.map((r) => r.name),
  });
  return detailView(emu, updated, records, failing.length > 0 && allPending);
}

// ---- suppressions ----
export const suppressionsOf = (emu: Emu, ws: Workspace) =>
  suppressions(emu).where((s) => s.workspaceId === ws.id).sort((a, b) => a.createdAt.localeCompare(b.createdAt));

export function addSuppression(emu: Emu, ws: Workspace, address: string, reason: Suppression["reason"] = "manual"): Suppression {
  const a = address.trim().toLowerCase();
  const existing = suppressions(emu).find((s) => s.workspaceId === ws.id && s.address === a);
  if (existing) throw conflict(`address: ${a} is already suppressed (reason ${existing.reason})`);
  emu.log({ kind: "mail", msg: `${a} suppressed (${reason})`, event: "suppressed", address: a, reason, workspaceId: ws.id });
  return suppressions(emu).insert({ id: newId(), workspaceId: ws.id, address: a, reason, createdAt: emu.now() });
}

export function removeSuppression(emu: Emu, ws: Workspace, address: string): void {
  const a = address.trim().toLowerCase();
  const s = suppressions(emu).find((x) => x.workspaceId === ws.id && x.address === a);
  if (!s) throw notFound("Suppression", a);
  if (s.reason === "complaint") {
    throw conflict(`${a} is suppressed because the recipient complained (marked a message as spam); a complaint suppression cannot be deleted`);
  }
  suppressions(emu).delete(s.id);
}

// ---- views ----
export const domainView = (d: MailDomain) => ({
  id: d.id,
  name: d.name,
  region: d.region,
  status: d.status,
  dailyQuota: d.dailyQuota,
  dkimPublicKey: d.dkimPublicKey,
  failingRecords: d.failingRecords,
  lastCheckedAt: d.lastCheckedAt,
  verifiedAt: d.verifiedAt,
  suspendedAt: d.suspendedAt,
  suspendedReason: d.suspendedReason,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** V1MailDomainDetail. On a plain read the per-record checks and `propagating` are null. */
export const detailView = (emu: Emu, d: MailDomain, records = recordsFor(emu, d), propagating: boolean | null = null) => ({
  domain: domainView(d),
  records,
  zone: zoneOf(emu, d),
  propagating,
  alignmentWarning: d.alignmentWarning,
});

export const suppressionView = (s: Suppression) => ({ id: s.id, address: s.address, reason: s.reason, createdAt: s.createdAt });

export const mailKeyView = (k: ApiKey) => ({
  id: k.id,
  name: k.name,
  keyHint: k.token.slice(0, k.token.indexOf("_", 5) + 5),
  isLive: k.kind === "mail_live",
  scope: k.scopes.includes("WRITE") ? "FULL" : "SEND",
  createdAt: k.createdAt,
  updatedAt: k.updatedAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
});

/** Forgets every suppression of every workspace (the control API; complaints cannot be deleted through the API). */
export function clearSuppressions(emu: Emu): void {
  for (const s of suppressions(emu).all()) suppressions(emu).delete(s.id);
}
