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
