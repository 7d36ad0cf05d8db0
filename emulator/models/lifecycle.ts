// The service lifecycle that services, deploys and cron share (infrastructure routes §2.3-2.4): the
// service and deploy rows, their tables, and the timing that derives a deploy's phase and a
// service's status from the emulator clock. It imports none of those three models, so they form
// no import circle.
import type { Principal } from "../auth";
import type { Emu } from "../emu";
import { notFound } from "../errors";
import type { Tier } from "./catalogue";
import { type Environment, environmentKind } from "./projects";

export const SERVICE_TYPES = ["WEB", "STATIC", "CRON", "POSTGRES", "MYSQL", "MARIADB", "MONGODB", "REDIS", "VALKEY"] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];
export const DATABASE_TYPES: ServiceType[] = ["POSTGRES", "MYSQL", "MARIADB", "MONGODB", "REDIS", "VALKEY"];
export const isDatabase = (t: string) => DATABASE_TYPES.includes(t as ServiceType);
export const SOURCE_TYPES = ["REPO_APP", "PUBLIC_GIT", "CONTAINER_IMAGE"] as const;
export const ENV_SCOPES = ["ALL", "PROD", "UAT", "DEV"] as const;

export interface ServiceSource {
  type: (typeof SOURCE_TYPES)[number] | null;
  repoFullName: string | null;
  gitUrl: string | null;
  branch: string | null;
  rootDir: string | null;
  image: string | null;
  imageCommand: string | null;
}
export interface ServiceBuild {
  buildCommand: string | null;
  startCommand: string | null;
  runtimeVersion: string | null;
  staticOutputDir: string | null;
  staticSpa: boolean;
  monorepoStrategy: "ISOLATED" | "WORKSPACE" | null;
  watchPaths: string[] | null;
}
export interface DatabaseSettings {
  name: string;
  user: string;
  password: string;
  connectionEnvName: string;
  injectConnectionUrl: boolean;
  /** Where the service's real database listens (POSTGRES only), once its listener is open. */
  endpoint?: { host: string; port: number } | null;
}

export interface Service {
  id: string;
  workspaceId: string;
  projectId: string;
  environmentId: string;
  name: string;
  type: ServiceType;
  tier: Tier | null;
  region: string;
  runtime: string | null;
  framework: string | null;
  port: number | null;
  healthCheckPath: string | null;
  installationId: string | null;
  subdomain: string | null;
  source: ServiceSource;
  build: ServiceBuild;
  cron: { schedule: string | null; command: string | null; suspended: boolean } | null;
  /** Scheduled runs are materialised up to this time. */
  cronCheckedAtMs: number | null;
  suspension: "NONE" | "USER" | "BILLING" | "ABUSE";
  db: DatabaseSettings | null;
  /** Open a preview environment for every pull request (PUT previews-enabled). */
  previewsEnabled?: boolean;
  createdAtMs: number;
  createdAt: string;
  updatedAt: string;
}

export interface EnvVarRow {
  id: string;
  serviceId: string;
  key: string;
  value: string;
  scope: (typeof ENV_SCOPES)[number];
  secret: boolean;
  /** The database service this value is linked from; read-only here. */
  linkedFrom: string | null;
}

export interface SecretFileRow {
  id: string;
  serviceId: string;
  path: string;
  content: string;
}

export const services = (emu: Emu) => emu.store.table<Service>("services");
export const envVars = (emu: Emu) => emu.store.table<EnvVarRow>("serviceEnvVars");
export const secretFiles = (emu: Emu) => emu.store.table<SecretFileRow>("serviceSecretFiles");
/** Services by environment and by subdomain; env vars and secret files by service, env vars by the database linked in. */
export const servicesByEnvironment = (emu: Emu) => services(emu).index("environment", { group: (s) => s.environmentId });
/** An environment's services named so (names are unique in an environment, whatever their case), and its databases. */
export const servicesByName = (emu: Emu) => services(emu).index("name", { group: (s) => `${s.environmentId} ${s.name.toLowerCase()}` });
export const databasesByEnvironment = (emu: Emu) => services(emu).index("databases", { group: (s) => (isDatabase(s.type) ? s.environmentId : undefined) });
export const servicesBySubdomain = (emu: Emu) => services(emu).index("subdomain", { group: (s) => s.subdomain ?? undefined });
export const envVarsByService = (emu: Emu) => envVars(emu).index("service", { group: (v) => v.serviceId, place: (v) => v.key });
export const envVarsByLink = (emu: Emu) => envVars(emu).index("link", { group: (v) => v.linkedFrom ?? undefined });
const secretFilesByService = (emu: Emu) => secretFiles(emu).index("service", { group: (f) => f.serviceId });

/**
 * A simulated duration at the configured speed (0 = instant). Whatever the speed, the route that
 * accepts a piece of work answers with it in its first state (a deploy QUEUED, a service
 * PROVISIONING, a run QUEUED, a preview CREATING), as the spec's 202s say; at speed 0 it moves on
 * right after that response, so the next read sees it done (the `accepted*View`s).
 */
export const speedMs = (emu: Emu, ms: number) => Math.round(ms * emu.settings.speed);
export const PROVISION_MS = { app: 3_000, database: 8_000 };


/** The service, if the caller's key reaches its workspace; otherwise 404, as for a missing one. */
export function getService(emu: Emu, who: Principal, id: string, what = "Service"): Service {
  const svc = services(emu).get(id);
  if (!svc || !who.canSee(svc.workspaceId)) throw notFound(what, id);
  return svc;
}

export function servicesIn(emu: Emu, environmentId: string): Service[] {
  return servicesByEnvironment(emu).list(environmentId);
}

export function envVarsOf(emu: Emu, serviceId: string): EnvVarRow[] {
  return envVarsByService(emu).list(serviceId);
}

/** Keys a deploy of this service sees: scope ALL, or the environment's tier. */
export function effectiveEnv(emu: Emu, svc: Service): EnvVarRow[] {
  const env = emu.store.table<Environment>("environments").get(svc.environmentId);
  const kind = env ? environmentKind(env.name) : null;
  return envVarsOf(emu, svc.id).filter((r) => r.scope === "ALL" || r.scope === kind);
}

export function secretFilesOf(emu: Emu, serviceId: string): SecretFileRow[] {
  return secretFilesByService(emu).list(serviceId).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}


// ---- deploys ----
export type DeployTrigger = "PUSH" | "MANUAL" | "ROLLBACK" | "FIRST_DEPLOY" | "SYSTEM";

export interface Failure {
  phase: "BUILD" | "RUN";
  code: string;
  error: string;
  /** STDERR lines that explain the failure. */
  lines: string[];
}

export interface Deploy {
  id: string;
  serviceId: string;
  seq: number;
  trigger: DeployTrigger;
  serviceType: string;
  branch: string | null;
  commitSha: string | null;
  commitMessage: string | null;
  authorName: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  /** What was built or pulled, for the logs. */
  artifact: string;
  sourceKind: "IMAGE" | "GIT" | "DATABASE" | "UPLOAD";
  port: number | null;
  healthCheckPath: string | null;
  envKeys: string[];
  filePaths: string[];
  createdAtMs: number;
  queueMs: number;
  buildMs: number;
  runMs: number;
  fail: Failure | null;
  cancelledAtMs: number | null;
  supersededAtMs: number | null;
  rollbackOf: string | null;
}

export const deploys = (emu: Emu) => emu.store.table<Deploy>("deploys");
export const deploysByService = (emu: Emu) => deploys(emu).index("service", { group: (d) => d.serviceId });
/** Newest first. */
export function deploysOf(emu: Emu, serviceId: string): Deploy[] {
  return deploysByService(emu).list(serviceId).sort((a, b) => b.seq - a.seq);
}

export const buildEndMs = (d: Deploy) => d.createdAtMs + d.queueMs + d.buildMs;
export const runEndMs = (d: Deploy) => buildEndMs(d) + d.runMs;
export const failedAtMs = (d: Deploy) => (d.fail?.phase === "BUILD" ? buildEndMs(d) : runEndMs(d));

/** When the deploy went (or will go) live; null when it never does. */
export function liveAtMs(d: Deploy): number | null {
  if (d.fail || d.cancelledAtMs !== null || d.supersededAtMs !== null) return null;
  return runEndMs(d);
}

export function deployStatus(emu: Emu, d: Deploy): string {
  const now = emu.clock.now();
  if (d.cancelledAtMs !== null && d.cancelledAtMs <= now) return "CANCELLED";
  if (d.supersededAtMs !== null && d.supersededAtMs <= now) return "SUPERSEDED";
  if (now < d.createdAtMs + d.queueMs) return "QUEUED";
  if (d.fail && now >= failedAtMs(d)) return "FAILED";
  if (now < buildEndMs(d)) return "BUILDING";
  if (now < runEndMs(d)) return "DEPLOYING";
  const live = liveAtMs(d)!;
  const newerLive = deploysByService(emu).list(d.serviceId).find((o) => o.seq > d.seq && (liveAtMs(o) ?? Infinity) <= now && liveAtMs(o)! >= live);
  return newerLive ? "REPLACED" : "RUNNING";
}


// ---- status ----
export function serviceStatus(emu: Emu, svc: Service): "PROVISIONING" | "ACTIVE" | "ERROR" {
  const provision = speedMs(emu, isDatabase(svc.type) ? PROVISION_MS.database : PROVISION_MS.app);
  if (emu.clock.now() < svc.createdAtMs + provision) return "PROVISIONING";
  const all = deploysOf(emu, svc.id);
  const everLive = all.some((d) => { const t = liveAtMs(d); return t !== null && t <= emu.clock.now(); });
  if (!everLive && all.length > 0 && deployStatus(emu, all[0]) === "FAILED") return "ERROR";
  return "ACTIVE";
}

export const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "app";

/** The host the service is served on; its url once placed. */
export const serviceHost = (svc: Service) => `${svc.subdomain ?? `${slug(svc.name)}-${svc.id.slice(0, 6)}`}.cloudplatform.app`;

export function serviceUrl(emu: Emu, svc: Service): string | null {
  if (svc.type !== "WEB" && svc.type !== "STATIC") return null;
  if (serviceStatus(emu, svc) === "PROVISIONING") return null;
  return `https://${serviceHost(svc)}`;
}

/** Stable uuid-shaped ids for generated log lines. */
export function lineId(parent: string, index: number): string {
  const hex = index.toString(16).padStart(12, "0");
  return `${parent.slice(0, 24)}${hex}`;
}

