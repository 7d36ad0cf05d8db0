// Response shapes of the service, deploy, cron and catalogue routes (infrastructure routes §2.3,
// §2.4, §2.8). Loose objects: unknown fields are kept, and enumerations are open.
import { z } from "zod";

const str = z.string().nullish();

export const V1ServiceSource = z.looseObject({
  type: str, repoFullName: str, gitUrl: str, branch: str, rootDir: str, image: str, imageCommand: str,
});
export const V1ServiceBuild = z.looseObject({
  buildCommand: str, startCommand: str, runtimeVersion: str, staticOutputDir: str,
  staticSpa: z.boolean().nullish(), monorepoStrategy: str, watchPaths: z.array(z.string()).nullish(),
});
export const V1ServiceCron = z.looseObject({ schedule: str, command: str, suspended: z.boolean().default(false) });
export const V1Region = z.looseObject({ key: z.string(), label: z.string().nullish() });

export const V1Service = z.looseObject({
  id: z.string(),
  environmentId: z.string(),
  name: z.string(),
  type: z.string(),
  status: z.string().default("ACTIVE"),
  tier: str,
  url: str,
  // Tolerate a bare region key as well as V1Region.
  region: z.union([V1Region, z.string()]).nullish(),
  runtime: str,
  framework: str,
  isStatic: z.boolean().default(false),
  port: z.number().nullish(),
  healthCheckPath: str,
  memoryMb: z.number().nullish(),
  cpuMillicores: z.number().nullish(),
  storageLimitMb: z.number().nullish(),
  source: V1ServiceSource.default({}),
  build: V1ServiceBuild.default({}),
  cron: V1ServiceCron.nullish(),
  suspension: z.string().default("NONE"),
  health: z.string().default("UNKNOWN"),
  // Not in the spec's V1Service; the emulator reports it (docs/api-assumptions.md).
  previewsEnabled: z.boolean().nullish(),
  lastDeployedAt: str,
  createdAt: str,
  updatedAt: str,
});
export type V1Service = z.infer<typeof V1Service>;

export const V1ServiceSummary = z.looseObject({ id: z.string(), name: z.string(), projectName: str, type: z.string() });

export const V1EnvVar = z.looseObject({
  key: z.string(),
  value: z.string().nullish(),
  scope: z.string().default("ALL"),
  secret: z.boolean().default(false),
  linked: z.boolean().default(false),
});
export type V1EnvVar = z.infer<typeof V1EnvVar>;

export const V1EnvVarChange = z.looseObject({
  envVars: z.array(V1EnvVar).default([]),
  needsRedeploy: z.boolean().default(false),
  warnings: z.array(z.string()).default([]),
});
export type V1EnvVarChange = z.infer<typeof V1EnvVarChange>;

export const V1SecretFile = z.looseObject({ path: z.string(), content: z.string().nullish() });
export type V1SecretFile = z.infer<typeof V1SecretFile>;
export const V1SecretFileChange = z.looseObject({
  secretFiles: z.array(V1SecretFile).default([]),
  needsRedeploy: z.boolean().default(false),
});

export const V1Connection = z.looseObject({
  scheme: z.string(),
  host: z.string(),
  port: z.number(),
  database: str,
  username: str,
  password: str,
  url: str,
  externalUrl: str,
});
export type V1Connection = z.infer<typeof V1Connection>;

export const V1Deploy = z.looseObject({
  id: z.string(),
  serviceId: z.string(),
  status: z.string(),
  trigger: str,
  branch: str,
  commitSha: str,
  commitMessage: str,
  error: str,
  errorCode: str,
  durationMs: z.number().nullish(),
  createdAt: str,
  startedAt: str,
  finishedAt: str,
});
export type V1Deploy = z.infer<typeof V1Deploy>;

export const V1DeployLogLine = z.looseObject({
  id: z.string().nullish(),
  line: z.string(),
  stream: str,
  level: str,
  createdAt: str,
});
export type V1DeployLogLine = z.infer<typeof V1DeployLogLine>;

export const V1CronSettings = z.looseObject({ serviceId: str, schedule: str, command: str, suspended: z.boolean().nullish() });

export const V1DeployLocation = z.looseObject({
  region: z.string(),
  label: z.string().nullish(),
  isDefault: z.boolean().default(false),
  freeTier: z.boolean().default(false),
});
export type V1DeployLocation = z.infer<typeof V1DeployLocation>;

export const V1ServiceTierPrice = z.looseObject({
  tier: z.string(), label: str, family: str, cpuMillicores: z.number().nullish(), memoryMb: z.number().nullish(),
  storageMb: z.number().nullish(), priceKobo: z.number(), currency: str,
});
export const V1PricingCatalog = z.looseObject({
  currency: z.string(),
  serviceTiers: z.array(V1ServiceTierPrice).default([]),
  unitRates: z.record(z.string(), z.unknown()).nullish(),
  freeAllowances: z.record(z.string(), z.unknown()).nullish(),
  computeGraceDays: z.number().nullish(),
  dataGraceDays: z.number().nullish(),
  stopsPaidServices: z.boolean().nullish(),
  minTopUpKobo: z.number().nullish(),
  maxTopUpKobo: z.number().nullish(),
  neverBilled: z.array(z.string()).default([]),
});
export type V1PricingCatalog = z.infer<typeof V1PricingCatalog>;

/** Database service types: they get connection details and no source. */
export const DATABASE_TYPES = ["POSTGRES", "MYSQL", "MARIADB", "MONGODB", "REDIS", "VALKEY"];

/** The region key, whether the API sent V1Region or a bare key. */
export const regionKeyOf = (r: V1Service["region"]): string | null => (r == null ? null : typeof r === "string" ? r : r.key);
