// Resource metrics and usage samples (infrastructure routes §2.8, §4.10). Nothing runs in the
// emulator, so samples are a plausible, deterministic function of the service and the time
// bucket on the emulator clock: a daily rhythm plus noise hashed from (service, bucket), sized to
// the service's tier, with database figures for database services. Same inputs, same numbers.
import { createHash } from "node:crypto";
import type { Emu } from "../emu";
import { badRequest } from "../errors";
import { tierPrice } from "./catalogue";
import type { Project } from "./projects";
import { isDatabase, PROVISION_MS, type Service, services, serviceStatus, speedMs } from "./lifecycle";

/** Each range and the bucket that gives it 30 to 168 points. */
export const RANGES = {
  LAST_30_MIN: { seconds: 1800, bucketSeconds: 60 },
  LAST_HOUR: { seconds: 3600, bucketSeconds: 60 },
  LAST_6H: { seconds: 21_600, bucketSeconds: 300 },
  LAST_24H: { seconds: 86_400, bucketSeconds: 900 },
  LAST_7D: { seconds: 604_800, bucketSeconds: 3600 },
  LAST_30D: { seconds: 2_592_000, bucketSeconds: 21_600 },
} as const;
export type Range = keyof typeof RANGES;
export const DEFAULT_RANGE: Range = "LAST_HOUR";
const MiB = 1024 * 1024;
const DAY_S = 86_400;

export function parseRange(raw: unknown): Range {
  if (raw === undefined || raw === "") return DEFAULT_RANGE;
  if (typeof raw === "string" && raw in RANGES) return raw as Range;
  throw badRequest(`range: must be one of ${Object.keys(RANGES).join(", ")}; got '${String(raw)}'`);
}

/** A number in [0, 1) fixed by its inputs. */
function noise(...parts: (string | number)[]): number {
  return createHash("sha256").update(parts.join("|")).digest().readUInt32BE(0) / 2 ** 32;
}

/** When the service first had something running to measure. */
const firstSampleMs = (emu: Emu, svc: Service) =>
  svc.createdAtMs + speedMs(emu, isDatabase(svc.type) ? PROVISION_MS.database : PROVISION_MS.app);

const ENGINE_ITEMS: Record<string, string> = { POSTGRES: "rows", MYSQL: "rows", MARIADB: "rows", MONGODB: "documents", REDIS: "keys", VALKEY: "keys" };

/** One sample of a service at `tMs`, averaged over a bucket of `bucketSeconds`. */
export function sample(svc: Service, tMs: number, bucketSeconds: number) {
  const bucket = Math.floor(tMs / 1000 / bucketSeconds);
  const start = bucket * bucketSeconds * 1000;
  const n = (what: string) => noise(svc.id, what, bucketSeconds, bucket);
  const day = Math.sin((2 * Math.PI * ((start / 1000) % DAY_S)) / DAY_S); // busiest mid-afternoon UTC
  const limit = tierPrice(svc.tier).memoryMb * MiB;
  const db = isDatabase(svc.type);
  const cpuPercent = round(Math.min(100, Math.max(0.1, (db ? 6 : 12) * (1 + 0.6 * day) + 8 * n("cpu"))), 2);
  const memoryBytes = Math.round(limit * (0.3 + 0.08 * day + 0.1 * n("mem")));
  const hoursUp = Math.max(0, (start - svc.createdAtMs) / 3_600_000);
  const storageBytes = db ? Math.round(24 * MiB + hoursUp * 0.4 * MiB) : null;
  return {
    t: new Date(start).toISOString(),
    cpuPercent,
    memoryBytes,
    memoryLimitBytes: limit,
    memoryPercent: round((memoryBytes / limit) * 100, 2),
    networkRxBytesPerSec: round(2_000 * (1 + day) + 6_000 * n("rx"), 1),
    networkTxBytesPerSec: round(8_000 * (1 + day) + 20_000 * n("tx"), 1),
    blockReadBytesPerSec: round((db ? 40_000 : 1_000) * n("br"), 1),
    blockWriteBytesPerSec: round((db ? 60_000 : 2_000) * n("bw"), 1),
    cacheHitRatio: db ? round(0.94 + 0.05 * n("hit"), 4) : null,
    connections: db ? 3 + Math.floor(15 * n("conn")) : null,
    opsPerSec: db ? round(40 * (1 + day) + 80 * n("ops"), 1) : null,
    storageBytes,
  };
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** V1MetricSeries: the buckets of the range that ended by now and that the service existed for. */
export function metricSeries(emu: Emu, svc: Service, range: Range) {
  const { seconds, bucketSeconds } = RANGES[range];
  const step = bucketSeconds * 1000;
  const now = emu.clock.now();
  const end = Math.floor(now / step) * step;
  const from = Math.max(end - seconds * 1000 + step, Math.ceil(firstSampleMs(emu, svc) / step) * step);
  const points = [];
  for (let t = from; t <= end; t += step) points.push(sample(svc, t, bucketSeconds));
  return { serviceId: svc.id, type: svc.type, range, bucketSeconds, points };
}

/** V1ServiceUsage: the latest one-minute sample, once the service runs. */
export function serviceUsage(emu: Emu, svc: Service) {
  const now = emu.clock.now();
  const hasData = serviceStatus(emu, svc) === "ACTIVE" && svc.suspension === "NONE" && now >= firstSampleMs(emu, svc);
  const s = hasData ? sample(svc, now, 60) : undefined;
  const minutesUp = Math.max(0, (now - svc.createdAtMs) / 60_000);
  return {
    serviceId: svc.id,
    type: svc.type,
    hasData,
    sampledAt: s?.t ?? null,
    cpuPercent: s?.cpuPercent ?? 0,
    memoryBytes: s?.memoryBytes ?? 0,
    memoryLimitBytes: tierPrice(svc.tier).memoryMb * MiB,
    memoryPercent: s?.memoryPercent ?? 0,
    networkRxBytesPerSec: s?.networkRxBytesPerSec ?? 0,
    networkTxBytesPerSec: s?.networkTxBytesPerSec ?? 0,
    database: isDatabase(svc.type)
      ? {
        engine: svc.type,
        cacheHitRatio: s?.cacheHitRatio ?? null,
        itemCount: s ? Math.round(1_000 + minutesUp * 3) : null,
        opsPerSec: s?.opsPerSec ?? null,
        opsTotal: s ? Math.round(minutesUp * 60 * 45) : null,
        storageBytes: s?.storageBytes ?? null,
        connections: s?.connections ?? null,
        itemLabel: ENGINE_ITEMS[svc.type] ?? null,
      }
      : null,
  };
}

/** V1ProjectUsage over every service of every environment of the project. */
export function projectUsage(emu: Emu, project: Project) {
  const usage = services(emu).where((s) => s.projectId === project.id).map((s) => serviceUsage(emu, s));
  const live = usage.filter((u) => u.hasData);
  return {
    projectId: project.id,
    serviceCount: usage.length,
    avgCpuPercent: live.length ? round(live.reduce((a, u) => a + u.cpuPercent, 0) / live.length, 2) : 0,
    totalMemoryBytes: live.reduce((a, u) => a + u.memoryBytes, 0),
    totalStorageBytes: live.reduce((a, u) => a + (u.database?.storageBytes ?? 0), 0),
    services: usage,
  };
}
