// The regions and pricing catalogue the platform offers (GET /v1/regions, GET /v1/pricing).
export interface Region {
  region: string;
  label: string;
  isDefault: boolean;
  freeTier: boolean;
}

export const REGIONS: Region[] = [
  { region: "af-west-1", label: "Lagos", isDefault: true, freeTier: true },
  { region: "af-south-1", label: "Johannesburg", isDefault: false, freeTier: false },
  { region: "eu-central-1", label: "Frankfurt", isDefault: false, freeTier: true },
  { region: "us-east-1", label: "Virginia", isDefault: false, freeTier: false },
];

export const DEFAULT_REGION = REGIONS.find((r) => r.isDefault)!.region;

export function findRegion(key: string): Region | undefined {
  return REGIONS.find((r) => r.region === key);
}

export function regionRef(key: string | null): { key: string; label: string } | null {
  const r = key ? findRegion(key) : undefined;
  return r ? { key: r.region, label: r.label } : null;
}

export type Tier = "FREE" | "STARTER" | "STANDARD" | "PRO";
export const TIERS: Tier[] = ["FREE", "STARTER", "STANDARD", "PRO"];

export interface TierPrice {
  tier: Tier;
  label: string;
  family: string;
  cpuMillicores: number;
  memoryMb: number;
  /** Disk a database of this size gets; null where the tier has no volume of its own. */
  storageMb: number | null;
  priceKobo: number;
  currency: string;
}

export const TIER_PRICES: TierPrice[] = [
  { tier: "FREE", label: "Free", family: "shared", cpuMillicores: 100, memoryMb: 256, storageMb: 1024, priceKobo: 0, currency: "NGN" },
  { tier: "STARTER", label: "Starter", family: "shared", cpuMillicores: 500, memoryMb: 512, storageMb: 10_240, priceKobo: 500_000, currency: "NGN" },
  { tier: "STANDARD", label: "Standard", family: "dedicated", cpuMillicores: 1000, memoryMb: 2048, storageMb: 51_200, priceKobo: 2_000_000, currency: "NGN" },
  { tier: "PRO", label: "Pro", family: "dedicated", cpuMillicores: 2000, memoryMb: 4096, storageMb: 102_400, priceKobo: 6_000_000, currency: "NGN" },
];

export function tierPrice(tier: string | null): TierPrice {
  return TIER_PRICES.find((t) => t.tier === tier) ?? TIER_PRICES[1];
}

export const PRICING_CATALOG = {
  currency: "NGN",
  serviceTiers: TIER_PRICES,
  unitRates: {
    currency: "NGN",
    vcpuKoboPerVcpuMonth: 1_500_000,
    memoryKoboPerGbMonth: 400_000,
    dbDiskKoboPerGbMonth: 25_000,
    objectStorageKoboPerGbMonth: 5_000,
    egressKoboPerGb: 10_000,
    emailKoboPerMessage: 50,
  },
  freeAllowances: {
    monthlyCreditKobo: 500_000,
    storageBytes: 1_073_741_824,
    egressBytes: 10_737_418_240,
    emailMessages: 3000,
    analyticsEvents: 100_000,
    sessionReplays: 1000,
    previewRateMultiplier: 0.5,
    previewFreeHours: 50,
  },
  computeGraceDays: 3,
  dataGraceDays: 14,
  stopsPaidServices: true,
  minTopUpKobo: 100_000,
  maxTopUpKobo: null,
  neverBilled: ["DNS zones", "sandbox email", "failed deploys"],
};
