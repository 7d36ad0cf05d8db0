// The wallet, invoices and this month's metered usage (infrastructure routes §2.8, §4.10). Three
// past invoices per workspace are derived from the workspace (newest OPEN, older PAID); the
// balance and usage follow the workspace's services on the emulator clock, priced from the catalogue.
import type { Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { notFound } from "../errors";
import { PRICING_CATALOG, tierPrice } from "./catalogue";
import { derivedId } from "./dns";
import { isDatabase, type Service, services } from "./lifecycle";
import { serviceUsage } from "./metrics";

const MONTH_HOURS = 730;
const OPENING_BALANCE = 2_500_000;
const LOW_BALANCE = 200_000;
const FREE_COMPUTE_HOURS = 750;
const FREE_DATABASE_BYTES = 1024 * 1024 * 1024;
const EGRESS_PER_HOUR = 40 * 1024 * 1024;

const monthStart = (ms: number, back = 0) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1);
};
const servicesOf = (emu: Emu, ws: Workspace) => services(emu).where((s) => s.workspaceId === ws.id);

/** Hours a service has run since the start of this month. */
function hoursThisMonth(emu: Emu, svc: Service): number {
  const now = emu.clock.now();
  return Math.max(0, now - Math.max(svc.createdAtMs, monthStart(now))) / 3_600_000;
}

/** What this month's running services cost so far, in kobo, at their tier's monthly price. */
function unbilledKobo(emu: Emu, ws: Workspace): number {
  return Math.round(servicesOf(emu, ws).reduce((a, s) => a + (tierPrice(s.tier).priceKobo / MONTH_HOURS) * hoursThisMonth(emu, s), 0));
}

export function balanceOf(emu: Emu, ws: Workspace) {
  const balanceMinor = OPENING_BALANCE - unbilledKobo(emu, ws);
  return { balanceMinor, currency: PRICING_CATALOG.currency, low: balanceMinor < LOW_BALANCE, lowBalanceThresholdMinor: LOW_BALANCE };
}

export function usageOf(emu: Emu, ws: Workspace) {
  const all = servicesOf(emu, ws);
  const computeHours = all.reduce((a, s) => a + hoursThisMonth(emu, s), 0);
  return {
    computeHours: Math.round(computeHours * 100) / 100,
    computeAllowanceHours: FREE_COMPUTE_HOURS,
    bandwidthBytes: Math.round(computeHours * EGRESS_PER_HOUR),
    bandwidthAllowanceBytes: PRICING_CATALOG.freeAllowances.egressBytes,
    databaseBytes: all.filter((s) => isDatabase(s.type)).reduce((a, s) => a + (serviceUsage(emu, s).database?.storageBytes ?? 0), 0),
    databaseAllowanceBytes: FREE_DATABASE_BYTES,
    storageBytes: 0,
    storageAllowanceBytes: PRICING_CATALOG.freeAllowances.storageBytes,
  };
}

// ---- invoices ----
const CATEGORIES = [
  { category: "COMPUTE", description: "Web services and cron jobs", share: 0.55 },
  { category: "DATABASE", description: "Databases and their disks", share: 0.3 },
  { category: "BANDWIDTH", description: "Egress", share: 0.1 },
  { category: "EMAIL", description: "Transactional email", share: 0.05 },
] as const;

/** Newest first: the last three full months before the workspace's seeding month. */
export function invoicesOf(emu: Emu, ws: Workspace) {
  const created = Date.parse(ws.createdAt);
  return [1, 2, 3].map((back) => {
    const periodStart = monthStart(created, back);
    const periodEnd = monthStart(created, back - 1);
    const ym = new Date(periodStart).toISOString().slice(0, 7).replace("-", "");
    const id = derivedId(ws.id, "invoice", ym);
    const usageKobo = 600_000 + (parseInt(id.slice(0, 6), 16) % 40) * 25_000;
    const creditKobo = Math.min(usageKobo, PRICING_CATALOG.freeAllowances.monthlyCreditKobo);
    const totalKobo = usageKobo - creditKobo;
    const status = back === 1 ? "OPEN" : "PAID";
    let left = usageKobo;
    const lineItems = CATEGORIES.map((c, i) => {
      const amountKobo = i === CATEGORIES.length - 1 ? left : Math.round(usageKobo * c.share);
      left -= amountKobo;
      const hours = c.category === "COMPUTE" || c.category === "DATABASE" ? (periodEnd - periodStart) / 3_600_000 : 0;
      return { id: derivedId(id, c.category), description: c.description, category: c.category, hours, amountKobo };
    });
    return {
      id, code: `INV-${ym}-${ws.id.slice(0, 4).toUpperCase()}`, number: 1003 - back, status,
      issuedAt: new Date(periodEnd).toISOString(), periodStart: new Date(periodStart).toISOString(), periodEnd: new Date(periodEnd).toISOString(),
      usageKobo, creditKobo, debitedKobo: status === "PAID" ? totalKobo : 0, unbilledKobo: status === "OPEN" ? totalKobo : 0, totalKobo, lineItems,
    };
  });
}

/** One invoice of a workspace the caller reaches; another workspace's is 404 like a missing one. */
export function getInvoice(emu: Emu, who: Principal, id: string) {
  for (const m of who.memberships()) {
    const found = invoicesOf(emu, who.workspace(m.workspaceId)).find((i) => i.id === id);
    if (found) return found;
  }
  throw notFound("Invoice", id);
}
