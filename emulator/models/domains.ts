// Registered domains, domain search, availability, orders and checkouts (infrastructure routes
// §2.1, §4.1) over a small priced catalogue. Nothing is bought: purchase and renewal routes return
// a checkout and change nothing. Each workspace's registered domains and their orders are derived
// from the workspace, so reads never create rows; only a PATCH stores the changed fields.
import { z } from "zod";
import type { Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { badRequest, conflict, notFound } from "../errors";
import { derivedId, domainName } from "./dns";

interface Tld {
  tld: string;
  /** Price of one year, in kobo. */
  priceKobo: number | null;
  code?: "TLD_COMING_SOON" | "PRICING_UNAVAILABLE";
}

/** The catalogue, cheapest first. */
export const TLDS: Tld[] = [
  { tld: "com.ng", priceKobo: 250_000 },
  { tld: "ng", priceKobo: 1_500_000 },
  { tld: "com", priceKobo: 1_800_000 },
  { tld: "org", priceKobo: 2_000_000 },
  { tld: "dev", priceKobo: 2_400_000 },
  { tld: "africa", priceKobo: 3_000_000 },
  { tld: "io", priceKobo: 6_500_000 },
  { tld: "ai", priceKobo: null, code: "PRICING_UNAVAILABLE" },
  { tld: "lagos", priceKobo: null, code: "TLD_COMING_SOON" },
];
/** Names someone else holds. */
const TAKEN = new Set(["example.com", "example.ng", "google.com", "acme.com", "shop.com", "paystack.com", "jumia.com.ng"]);
const PREMIUM_FACTOR = 25;

export interface RegisteredDomainChanges {
  id: string;
  autoRenew?: boolean;
  nameserverMode?: "CUSTOM" | "NC";
  customNameservers?: string[] | null;
  updatedAt: string;
}

const changes = (emu: Emu) => emu.store.table<RegisteredDomainChanges>("registeredDomainChanges");
const slug = (ws: Workspace) => ws.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "workspace";
const tldOf = (domain: string) => TLDS.find((t) => domain.endsWith(`.${t.tld}`) && !domain.slice(0, -t.tld.length - 1).includes("."));
const addYears = (iso: string, years: number) => {
  const d = new Date(iso);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString();
};

/** Two domains per workspace: one active, one close to expiry. */
function baseDomains(emu: Emu, ws: Workspace) {
  const created = ws.createdAt;
  const soon = new Date(emu.clock.now() + 20 * 86_400_000).toISOString();
  return [
    { domain: `${slug(ws)}.com`, status: "ACTIVE", autoRenew: true, expiresAt: addYears(created, 1) },
    { domain: `${slug(ws)}-store.ng`, status: "EXPIRING", autoRenew: false, expiresAt: soon },
  ].map((b) => ({
    id: derivedId("registered-domain", ws.id, b.domain),
    teamId: ws.id,
    domain: b.domain,
    tld: tldOf(b.domain)!.tld,
    status: b.status,
    autoRenew: b.autoRenew,
    nameserverMode: "NC" as "CUSTOM" | "NC",
    customNameservers: null as string[] | null,
    registeredAt: created,
    expiresAt: b.expiresAt,
    registrantVerifiedAt: created,
    transferLockUntil: addYears(created, 0),
    lastError: null,
    createdAt: created,
    updatedAt: created,
  }));
}

export type RegisteredDomain = ReturnType<typeof baseDomains>[number];

export function registeredDomainsOf(emu: Emu, ws: Workspace): RegisteredDomain[] {
  return baseDomains(emu, ws).map((d) => {
    const c = changes(emu).get(d.id);
    return c ? { ...d, ...Object.fromEntries(Object.entries(c).filter(([k]) => k !== "id")) } : d;
  });
}

export function getRegisteredDomain(emu: Emu, who: Principal, id: string): { domain: RegisteredDomain; ws: Workspace } {
  for (const m of who.memberships()) {
    const ws = who.workspace(m.workspaceId);
    const d = registeredDomainsOf(emu, ws).find((x) => x.id === id);
    if (d) return { domain: d, ws };
  }
  throw notFound("Registered domain", id);
}

const hostname = z.string().regex(/^([a-z0-9-]{1,63}\.)+[a-z]{2,63}\.?$/i, "must be a host name such as ns1.example.net");
export const patchRegisteredBody = z.strictObject({
  autoRenew: z.boolean({ error: "must be a boolean" }).optional(),
  nameserverMode: z.enum(["CUSTOM", "NC"], { error: "must be CUSTOM or NC" }).optional(),
  nameservers: z.array(hostname).min(2, "must list at least two nameservers").max(13, "must list at most 13 nameservers").optional(),
});

export function patchRegisteredDomain(emu: Emu, d: RegisteredDomain, input: z.infer<typeof patchRegisteredBody>): RegisteredDomain {
  const mode = input.nameserverMode ?? (input.nameservers ? "CUSTOM" : d.nameserverMode);
  if (mode === "CUSTOM" && !input.nameservers && !d.customNameservers) throw badRequest("nameservers: required with nameserverMode CUSTOM");
  if (mode === "NC" && input.nameservers) throw badRequest("nameservers: only used with nameserverMode CUSTOM");
  const prev = changes(emu).get(d.id);
  const next: RegisteredDomainChanges = {
    ...prev,
    id: d.id,
    ...(input.autoRenew !== undefined ? { autoRenew: input.autoRenew } : {}),
    nameserverMode: mode,
    customNameservers: mode === "NC" ? null : (input.nameservers?.map((n) => n.toLowerCase().replace(/\.$/, "")) ?? d.customNameservers),
    updatedAt: emu.now(),
  };
  changes(emu).insert(next);
  return { ...d, ...next };
}

// ---- pricing, search, availability ----
export function searchRow(domain: string, years = 1) {
  const tld = tldOf(domain);
  const label = tld ? domain.slice(0, -tld.tld.length - 1) : domain.split(".")[0];
  const row = (available: boolean, code: string | null, reason: string | null, priceKobo: number | null, premium = false) => ({
    domain, available, premium, priceKobo, years, unavailableCode: code, unavailableReason: reason,
  });
  if (!tld) return row(false, "TLD_UNSUPPORTED", `We do not sell .${domain.split(".").slice(1).join(".")} domains`, null);
  if (tld.code === "TLD_COMING_SOON") return row(false, tld.code, `.${tld.tld} domains are not on sale yet`, null);
  if (tld.code === "PRICING_UNAVAILABLE" || tld.priceKobo === null) return row(false, "PRICING_UNAVAILABLE", `We cannot price .${tld.tld} domains right now`, null);
  if (TAKEN.has(domain)) return row(false, "TAKEN", `${domain} is already registered`, null);
  const premium = label.length <= 3;
  return row(true, null, null, tld.priceKobo * years * (premium ? PREMIUM_FACTOR : 1), premium);
}

/** The bare name of a query: any URL scheme, path, `www.` and TLD stripped. */
export function bareQuery(raw: string): { bare: string; tld: string | null } {
  const host = raw.trim().toLowerCase().replace(/^[a-z]+:\/\//, "").replace(/[/?#].*$/, "").replace(/^www\./, "").replace(/\.$/, "");
  const dot = host.indexOf(".");
  const bare = (dot < 0 ? host : host.slice(0, dot)).replace(/[^a-z0-9-]/g, "");
  if (!bare) throw badRequest("query: must contain a name to search for");
  return { bare, tld: dot < 0 ? null : host.slice(dot + 1) };
}

export function search(raw: string) {
  const { bare, tld } = bareQuery(raw);
  const rows = TLDS.map((t) => searchRow(`${bare}.${t.tld}`));
  if (tld && !TLDS.some((t) => t.tld === tld)) rows.push(searchRow(`${bare}.${tld}`));
  const cheapest = (a: { priceKobo: number | null }, b: { priceKobo: number | null }) => (a.priceKobo ?? 0) - (b.priceKobo ?? 0);
  const available = rows.filter((r) => r.available).sort(cheapest);
  const suggestions = [`get${bare}`, `${bare}hq`, `${bare}app`]
    .flatMap((n) => TLDS.slice(0, 3).map((t) => searchRow(`${n}.${t.tld}`)))
    .filter((r) => r.available)
    .sort(cheapest)
    .slice(0, 5);
  return {
    query: tld ? `${bare}.${tld}` : bare,
    available,
    availableCount: available.length + suggestions.length,
    suggestions,
    unavailable: rows.filter((r) => !r.available),
  };
}

export const registerBody = z.object({
  domain: z.string({ error: "must be a string" }),
  years: z.number({ error: "must be an integer number of years" }).int().min(1, "must be 1 to 10").max(10, "must be 1 to 10"),
  contact: z.record(z.string(), z.unknown(), { error: "must be an object with the registrant's contact fields" }),
});

const checkout = (emu: Emu, amountKobo: number, kind: string) => {
  const reference = `${kind}_${derivedId(kind, emu.now(), String(Math.random())).slice(0, 16)}`;
  return { amountKobo, checkoutUrl: `https://checkout.cloudplatform.test/pay/${reference}`, reference };
};

export function registerCheckout(emu: Emu, ws: Workspace, input: z.infer<typeof registerBody>) {
  const domain = domainName(input.domain, "domain");
  if (registeredDomainsOf(emu, ws).some((d) => d.domain === domain)) throw conflict(`domain: ${domain} is already registered to this workspace`);
  const row = searchRow(domain, input.years);
  if (!row.available) throw conflict(`domain: ${row.unavailableReason} (${row.unavailableCode})`);
  return checkout(emu, row.priceKobo!, "reg");
}

export function renewalQuote(emu: Emu, d: RegisteredDomain, years: number) {
  const tld = TLDS.find((t) => t.tld === d.tld);
  if (!tld?.priceKobo) throw conflict(`${d.domain} cannot be priced for renewal right now`);
  const from = d.expiresAt ?? emu.now();
  return { domain: d.domain, years, amountKobo: tld.priceKobo * years, expiresAt: d.expiresAt, newExpiresAt: addYears(from, years) };
}

export const renewalCheckout = (emu: Emu, d: RegisteredDomain, years: number) => checkout(emu, renewalQuote(emu, d, years).amountKobo, "ren");

/** One fulfilled REGISTER order per registered domain, newest first. */
export function ordersOf(emu: Emu, ws: Workspace) {
  return registeredDomainsOf(emu, ws)
    .map((d) => ({
      id: derivedId("order", d.id),
      teamId: ws.id,
      domain: d.domain,
      kind: "REGISTER",
      status: "FULFILLED",
      amountKobo: renewalQuote(emu, d, 1).amountKobo,
      years: 1,
      reference: `reg_${derivedId("ref", d.id).slice(0, 16)}`,
      failureReason: null,
      createdAt: d.createdAt,
      updatedAt: d.createdAt,
    }))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
