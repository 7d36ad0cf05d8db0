// Services, env vars, secret files and database connections (infrastructure routes §2.3, §4.3).
// Lifecycles are computed on read from timestamps on the emulator clock, scaled by settings.speed.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Principal } from "../auth";
import { controlRoute, extendControl } from "../control";
import type { Emu } from "../emu";
import { badRequest, conflict, notFound } from "../errors";
import { newId } from "../store";
import { findRegion, regionRef, tierPrice, TIERS, type Tier } from "./catalogue";
import { checkSchedule, deleteRunsOf } from "./cron";
import { deleteDeploysOf, queueDeploy } from "./deploys";
import {
  deploysOf, deployStatus, ENV_SCOPES, SERVICE_TYPES, SOURCE_TYPES, envVars, type EnvVarRow, isDatabase, liveAtMs, secretFiles,
  type SecretFileRow, type Service, type ServiceSource, type ServiceType, services, servicesIn, serviceStatus, serviceUrl, slug,
} from "./lifecycle";
import { checkRegion, type Environment, environmentKind, nameField, type Project } from "./projects";

// Routes and other models read the service rows through this module.
export {
  DATABASE_TYPES, effectiveEnv, envVarsOf, getService, isDatabase, SERVICE_TYPES, secretFilesOf, services, servicesIn,
  serviceHost, serviceStatus, serviceUrl, speedMs,
} from "./lifecycle";
export type { DatabaseSettings, EnvVarRow, SecretFileRow, Service, ServiceBuild, ServiceSource, ServiceType } from "./lifecycle";

// ---- request bodies ----
const KEY_RULE = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;
const PATH_RULE = /^[A-Za-z0-9_.\/-]{1,255}$/;
const SUBDOMAIN_RULE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const str = (max = 1024) => z.string().max(max, `must be at most ${max} characters`);

export const envVarInput = z.object({
  key: z.string().regex(KEY_RULE, "must start with a letter or '_' and hold only letters, digits and '_' (at most 255)"),
  value: z.string().max(32_768, "must be at most 32768 characters"),
  scope: z.enum(ENV_SCOPES).optional(),
  secret: z.boolean().optional(),
});
export const secretFileInput = z.object({
  path: z.string().regex(PATH_RULE, "must be 1 to 255 characters: letters, digits, '_', '.', '/' or '-'").refine((p) => !p.split("/").includes(".."), "must not contain '..'"),
  content: z.string().max(512 * 1024, "must be at most 512 KiB"),
});

export const createServiceBody = z.object({
  name: nameField,
  type: z.enum(SERVICE_TYPES),
  region: z.string().optional(),
  tier: z.enum(TIERS as [Tier, ...Tier[]]).optional(),
  sourceType: z.enum(SOURCE_TYPES).optional(),
  repoFullName: z.string().regex(/^[\w.-]+\/[\w.-]+$/, "must be owner/name").optional(),
  gitUrl: z.string().regex(/^https:\/\/\S+$/, "must be a public HTTPS git URL").optional(),
  image: str(512).min(1, "must not be empty").optional(),
  imageCommand: str().optional(),
  installationId: str(128).optional(),
  branch: str(255).optional(),
  rootDir: str(255).optional(),
  monorepoStrategy: z.enum(["ISOLATED", "WORKSPACE"]).optional(),
  watchPaths: z.array(str(255)).max(50, "must have at most 50 entries").optional(),
  port: z.number().int("must be an integer").min(1, "must be 1 to 65535").max(65535, "must be 1 to 65535").optional(),
  healthCheckPath: z.string().regex(/^\//, "must start with '/'").max(255).optional(),
  buildCommand: str().optional(),
  startCommand: str().optional(),
  runtimeVersion: str(64).optional(),
  staticOutputDir: str(255).optional(),
  staticIndexPath: str(255).optional(),
  staticUploadId: str(128).optional(),
  staticSpa: z.boolean().optional(),
  subdomain: z.string().regex(SUBDOMAIN_RULE, "must be a DNS label: lowercase letters, digits and '-'").optional(),
  schedule: z.string().optional(),
  command: str(4096).optional(),
  envVars: z.array(envVarInput).max(500, "must have at most 500 entries").optional(),
  secretFiles: z.array(secretFileInput).max(50, "must have at most 50 entries").optional(),
  dbName: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "must be a database identifier (letters, digits, '_')").optional(),
  dbUser: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "must be a user identifier (letters, digits, '_')").optional(),
  dbPassword: z.string().min(12, "must be at least 12 characters").max(128, "must be at most 128 characters").optional(),
  connectionEnvName: z.string().regex(KEY_RULE, "must be an env var key").optional(),
  injectConnectionUrl: z.boolean().optional(),
});
export type CreateServiceBody = z.infer<typeof createServiceBody>;

export const patchServiceBody = z.object({
  name: createServiceBody.shape.name.optional(),
  build: z.object({
    buildCommand: str(), startCommand: str(), runtimeVersion: str(64), rootDir: str(255),
    healthCheckPath: createServiceBody.shape.healthCheckPath.unwrap(),
    port: createServiceBody.shape.port.unwrap(),
    monorepoStrategy: z.enum(["ISOLATED", "WORKSPACE"]),
    staticOutputDir: str(255), staticSpa: z.boolean(), watchPaths: z.array(str(255)).max(50),
  }).partial().optional(),
  source: z.object({
    sourceType: z.enum(SOURCE_TYPES),
    repoFullName: createServiceBody.shape.repoFullName.unwrap(),
    installationId: str(128),
    gitUrl: createServiceBody.shape.gitUrl.unwrap(),
    branch: str(255),
    image: str(512).min(1, "must not be empty"),
    imageCommand: str(),
    redeploy: z.boolean(),
  }).partial().optional(),
});
export const patchEnvVarsBody = z.object({ envVars: z.array(envVarInput).max(500, "must have at most 500 entries") });

// ---- create ----
/** The rules of a create body that read no state; each failure is a 400 naming the field. */
export function checkServiceBody(body: CreateServiceBody): void {
  const type = body.type;
  const db = isDatabase(type);
  const fail = (m: string) => {
    throw badRequest(m);
  };
  if (type === "CRON" && !body.schedule) fail("schedule: is required for a CRON service (five-field cron expression, UTC)");
  if (type !== "CRON" && body.schedule !== undefined) fail(`schedule: applies to CRON services only, not ${type}`);
  if (type !== "CRON" && body.command !== undefined) fail(`command: applies to CRON services only, not ${type}; use startCommand`);
  if (body.schedule !== undefined) checkSchedule(body.schedule);
  for (const k of ["dbName", "dbUser", "dbPassword", "connectionEnvName", "injectConnectionUrl"] as const) {
    if (!db && body[k] !== undefined) fail(`${k}: applies to database services only, not ${type}`);
  }
  if (!db) checkSource(inferSourceType(body), body, type);
  if (db && (body.image || body.gitUrl || body.repoFullName)) fail(`image: a ${type} service runs the platform's engine image; leave image, gitUrl and repoFullName out`);
  checkRegion(body.region);
  const keys = new Set<string>();
  for (const v of body.envVars ?? []) {
    if (keys.has(v.key)) fail(`envVars: key ${v.key} is listed twice`);
    keys.add(v.key);
  }
  const paths = new Set<string>();
  for (const f of body.secretFiles ?? []) {
    if (paths.has(f.path)) fail(`secretFiles: path ${f.path} is listed twice`);
    paths.add(f.path);
  }
}

export function createService(emu: Emu, env: Environment, project: Project, body: CreateServiceBody): Service {
  checkServiceBody(body);
  const type = body.type;
  const db = isDatabase(type);
  const sourceType = db ? null : inferSourceType(body);
  const region = body.region ?? project.defaultRegion ?? emu.settings.defaultRegion;
  const tier: Tier = body.tier ?? "STARTER";
  if (tier === "FREE") checkFreeSlot(emu, project.workspaceId, region);
  const siblings = servicesIn(emu, env.id);
  const clash = siblings.find((s) => s.name.toLowerCase() === body.name.toLowerCase());
  if (clash) throw conflict(`name: environment ${env.id} already has a service named '${clash.name}' (${clash.id})`);
  if (body.subdomain && services(emu).find((s) => s.subdomain === body.subdomain)) {
    throw conflict(`subdomain: '${body.subdomain}' is taken; choose another`);
  }

  const detected = sourceType && sourceType !== "CONTAINER_IMAGE" ? detectBuild({ gitUrl: body.gitUrl, repoFullName: body.repoFullName }) : null;
  const now = emu.now();
  const svc = services(emu).insert({
    id: newId(),
    workspaceId: project.workspaceId,
    projectId: project.id,
    environmentId: env.id,
    name: body.name,
    type,
    tier,
    region,
    runtime: db ? type.toLowerCase() : sourceType === "CONTAINER_IMAGE" ? "docker" : (detected?.runtime ?? null),
    framework: detected?.framework ?? null,
    port: type === "WEB" ? (body.port ?? detected?.port ?? 8080) : (body.port ?? null),
    healthCheckPath: body.healthCheckPath ?? null,
    installationId: body.installationId ?? null,
    subdomain: body.subdomain ?? null,
    source: {
      type: sourceType,
      repoFullName: body.repoFullName ?? null,
      gitUrl: body.gitUrl ?? null,
      branch: body.branch ?? (sourceType && sourceType !== "CONTAINER_IMAGE" ? "main" : null),
      rootDir: body.rootDir ?? null,
      image: body.image ?? null,
      imageCommand: body.imageCommand ?? null,
    },
    build: {
      buildCommand: body.buildCommand ?? detected?.buildCommand ?? null,
      startCommand: body.startCommand ?? detected?.startCommand ?? null,
      runtimeVersion: body.runtimeVersion ?? detected?.runtimeVersion ?? null,
      staticOutputDir: body.staticOutputDir ?? (type === "STATIC" ? (detected?.staticOutputDir ?? "dist") : null),
      staticSpa: body.staticSpa ?? false,
      monorepoStrategy: body.monorepoStrategy ?? null,
      watchPaths: body.watchPaths ?? null,
    },
    cron: type === "CRON" ? { schedule: body.schedule!.trim(), command: body.command ?? null, suspended: false } : null,
    cronCheckedAtMs: null,
    suspension: "NONE",
    db: db
      ? {
          name: body.dbName ?? (type === "REDIS" || type === "VALKEY" ? "0" : "app"),
          user: body.dbUser ?? (type === "REDIS" || type === "VALKEY" ? "default" : "app"),
          password: body.dbPassword ?? randomBytes(18).toString("base64url"),
          connectionEnvName: body.connectionEnvName ?? "DATABASE_URL",
          injectConnectionUrl: body.injectConnectionUrl ?? false,
        }
      : null,
    createdAtMs: emu.clock.now(),
    createdAt: now,
    updatedAt: now,
  });
  // Variables and files are in place before the first deploy is queued, so it sees them.
  for (const v of body.envVars ?? []) upsertRow(emu, svc, v);
  for (const f of body.secretFiles ?? []) putFileRow(emu, svc, f);
  linkInto(emu, svc);
  if (svc.db?.injectConnectionUrl) linkFrom(emu, svc);
  queueDeploy(emu, svc, "FIRST_DEPLOY");
  return svc;
}

function inferSourceType(body: CreateServiceBody): ServiceSource["type"] {
  if (body.sourceType) return body.sourceType;
  if (body.image) return "CONTAINER_IMAGE";
  if (body.gitUrl) return "PUBLIC_GIT";
  if (body.repoFullName) return "REPO_APP";
  return null;
}

function checkSource(sourceType: ServiceSource["type"], body: { image?: string; gitUrl?: string; repoFullName?: string; staticUploadId?: string }, type: string): void {
  if (sourceType === null) {
    if (type === "STATIC" && body.staticUploadId) return;
    throw badRequest(`sourceType: a ${type} service needs a source: set image (CONTAINER_IMAGE), gitUrl (PUBLIC_GIT) or repoFullName (REPO_APP)`);
  }
  const needs = { CONTAINER_IMAGE: "image", PUBLIC_GIT: "gitUrl", REPO_APP: "repoFullName" } as const;
  const field = needs[sourceType];
  if (!body[field]) throw badRequest(`${field}: is required when sourceType is ${sourceType}`);
}

/** FREE uses the workspace's single free slot, in a region that offers it. */
function checkFreeSlot(emu: Emu, workspaceId: string, region: string, except?: string): void {
  if (!findRegion(region)?.freeTier) {
    throw badRequest(`tier: FREE is not offered in region ${region}; regions with a free tier: af-west-1, eu-central-1 (see GET /v1/regions)`);
  }
  const used = services(emu).find((s) => s.workspaceId === workspaceId && s.tier === "FREE" && s.id !== except);
  if (used) {
    throw conflict(`tier: the workspace's free slot is already used by service '${used.name}' (${used.id}); a workspace has one FREE service. Choose STARTER, STANDARD or PRO, or delete that service first`);
  }
}

// ---- read ----
export function listServices(emu: Emu, who: Principal, query: Record<string, unknown>) {
  const projects = emu.store.table<Project>("projects");
  const q = typeof query.search === "string" ? query.search.toLowerCase() : "";
  return services(emu)
    .where((s) => who.canSee(s.workspaceId))
    .map((s) => ({ s, projectName: projects.get(s.projectId)?.name ?? "" }))
    .filter(({ s, projectName }) => !q || s.name.toLowerCase().includes(q) || projectName.toLowerCase().includes(q))
    .sort((a, b) => a.projectName.localeCompare(b.projectName) || a.s.projectId.localeCompare(b.s.projectId) || a.s.name.localeCompare(b.s.name))
    .map(({ s, projectName }) => ({ id: s.id, name: s.name, projectName, type: s.type }));
}

function health(emu: Emu, svc: Service): string {
  if (svc.suspension !== "NONE") return "STOPPED";
  const all = deploysOf(emu, svc.id);
  if (all.some((d) => deployStatus(emu, d) === "RUNNING")) return "HEALTHY";
  const latest = all[0];
  if (latest && deployStatus(emu, latest) === "FAILED" && latest.fail?.code === "CRASH") return "CRASH_LOOPING";
  if (latest && deployStatus(emu, latest) === "FAILED") return "MISSING";
  return "UNKNOWN";
}

/** A new service as its create answers: PROVISIONING, not placed (no url), its first deploy queued. */
export function acceptedServiceView(emu: Emu, svc: Service) {
  return { ...serviceView(emu, svc), status: "PROVISIONING", url: null, health: svc.suspension !== "NONE" ? "STOPPED" : "UNKNOWN", lastDeployedAt: null };
}

export function serviceView(emu: Emu, svc: Service) {
  const size = tierPrice(svc.tier);
  const live = deploysOf(emu, svc.id).map(liveAtMs).filter((t): t is number => t !== null && t <= emu.clock.now());
  return {
    id: svc.id,
    environmentId: svc.environmentId,
    name: svc.name,
    type: svc.type,
    status: serviceStatus(emu, svc),
    tier: svc.tier,
    url: serviceUrl(emu, svc),
    region: regionRef(svc.region),
    runtime: svc.runtime,
    framework: svc.framework,
    isStatic: svc.type === "STATIC",
    port: svc.port,
    healthCheckPath: svc.healthCheckPath,
    memoryMb: size.memoryMb,
    cpuMillicores: size.cpuMillicores,
    storageLimitMb: isDatabase(svc.type) ? size.storageMb : null,
    source: svc.source,
    build: svc.build,
    cron: svc.cron,
    suspension: svc.suspension,
    health: health(emu, svc),
    previewsEnabled: svc.previewsEnabled ?? false,
    lastDeployedAt: live.length ? new Date(Math.max(...live)).toISOString() : null,
    createdAt: svc.createdAt,
    updatedAt: svc.updatedAt,
  };
}

// ---- update ----
export function patchService(emu: Emu, svc: Service, input: z.infer<typeof patchServiceBody>): Service {
  const patch: Partial<Service> = { updatedAt: emu.now() };
  if (input.name !== undefined && input.name !== svc.name) {
    const clash = servicesIn(emu, svc.environmentId).find((s) => s.id !== svc.id && s.name.toLowerCase() === input.name!.toLowerCase());
    if (clash) throw conflict(`name: environment ${svc.environmentId} already has a service named '${clash.name}' (${clash.id})`);
    patch.name = input.name;
  }
  if (input.build) {
    const b = input.build;
    const build = { ...svc.build };
    for (const k of ["buildCommand", "startCommand", "runtimeVersion", "staticOutputDir"] as const) {
      if (b[k] !== undefined) build[k] = b[k] || null;
    }
    if (b.staticSpa !== undefined) build.staticSpa = b.staticSpa;
    if (b.monorepoStrategy !== undefined) build.monorepoStrategy = b.monorepoStrategy;
    if (b.watchPaths !== undefined) build.watchPaths = b.watchPaths;
    patch.build = build;
    if (b.rootDir !== undefined) patch.source = { ...svc.source, rootDir: b.rootDir || null };
    if (b.port !== undefined) patch.port = b.port;
    if (b.healthCheckPath !== undefined) patch.healthCheckPath = b.healthCheckPath || null;
  }
  let redeploy = false;
  if (input.source) {
    if (isDatabase(svc.type)) throw badRequest(`source: a ${svc.type} service runs the platform's engine image; its source cannot change`);
    const s = input.source;
    const source = { ...svc.source, ...(patch.source ?? {}) };
    if (s.repoFullName !== undefined) source.repoFullName = s.repoFullName;
    if (s.gitUrl !== undefined) source.gitUrl = s.gitUrl;
    if (s.branch !== undefined) source.branch = s.branch;
    if (s.image !== undefined) source.image = s.image;
    if (s.imageCommand !== undefined) source.imageCommand = s.imageCommand || null;
    source.type = s.sourceType
      ?? (s.image !== undefined ? "CONTAINER_IMAGE" : s.gitUrl !== undefined ? "PUBLIC_GIT" : s.repoFullName !== undefined ? "REPO_APP" : source.type);
    checkSource(source.type, { image: source.image ?? undefined, gitUrl: source.gitUrl ?? undefined, repoFullName: source.repoFullName ?? undefined }, svc.type);
    patch.source = source;
    if (s.installationId !== undefined) patch.installationId = s.installationId;
    redeploy = s.redeploy === true;
  }
  const updated = services(emu).update(svc.id, patch);
  if (redeploy) {
    requireNotSuspended(updated);
    queueDeploy(emu, updated, "MANUAL");
  }
  return updated;
}

export function requireNotSuspended(svc: Service): void {
  if (svc.suspension !== "NONE") {
    throw conflict(`Service ${svc.id} is suspended (${svc.suspension}); resume it before deploying`);
  }
}

export function setSuspended(emu: Emu, svc: Service, suspended: boolean): Service {
  if (!suspended && svc.suspension !== "NONE" && svc.suspension !== "USER") {
    throw conflict(`Service ${svc.id} is suspended for ${svc.suspension}; only the platform can lift that`);
  }
  return services(emu).update(svc.id, { suspension: suspended ? "USER" : "NONE", updatedAt: emu.now() });
}

// ---- delete ----
export function deleteService(emu: Emu, svc: Service): void {
  // Custom domains and previews listen for this and go with the service.
  emu.emit("service.deleting", svc);
  for (const v of envVars(emu).where((r) => r.serviceId === svc.id || r.linkedFrom === svc.id)) envVars(emu).delete(v.id);
  for (const f of secretFiles(emu).where((r) => r.serviceId === svc.id)) secretFiles(emu).delete(f.id);
  deleteDeploysOf(emu, svc.id);
  deleteRunsOf(emu, svc.id);
  services(emu).delete(svc.id);
  // Feature models that hang rows on a service (static-site content) drop them on this.
  emu.emit("service.deleted", svc);
}

// ---- env vars ----
const envRowId = (serviceId: string, key: string) => `${serviceId}:${key}`;

export function envVarView(r: EnvVarRow, blank: boolean) {
  return {
    key: r.key,
    value: blank && (r.secret || r.linkedFrom) ? "" : r.value,
    scope: r.scope,
    secret: r.secret,
    linked: r.linkedFrom !== null,
  };
}

function upsertRow(emu: Emu, svc: Service, v: z.infer<typeof envVarInput>): boolean {
  const id = envRowId(svc.id, v.key);
  const old = envVars(emu).get(id);
  const row: EnvVarRow = { id, serviceId: svc.id, key: v.key, value: v.value, scope: v.scope ?? "ALL", secret: v.secret ?? false, linkedFrom: null };
  if (old && old.value === row.value && old.scope === row.scope && old.secret === row.secret) return false;
  envVars(emu).insert(row);
  return true;
}

/** Upsert by key; unlisted keys are kept. Linked keys are read-only here. */
export function patchEnvVars(emu: Emu, svc: Service, input: z.infer<typeof patchEnvVarsBody>, env: Environment) {
  const warnings: string[] = [];
  const last = new Map<string, z.infer<typeof envVarInput>>();
  for (const v of input.envVars) {
    if (last.has(v.key)) warnings.push(`${v.key}: listed more than once; the last entry was kept`);
    last.set(v.key, v);
  }
  for (const key of last.keys()) {
    const old = envVars(emu).get(envRowId(svc.id, key));
    if (old?.linkedFrom) {
      throw conflict(`envVars: ${key} is linked from database service ${old.linkedFrom} and is read-only here; change the database's connection settings instead`);
    }
  }
  let changed = false;
  const kind = environmentKind(env.name);
  for (const v of last.values()) {
    if (upsertRow(emu, svc, v)) changed = true;
    if (v.key !== v.key.toUpperCase()) warnings.push(`${v.key}: keys are conventionally upper case`);
    if (v.scope && v.scope !== "ALL" && v.scope !== kind) {
      warnings.push(`${v.key}: scope ${v.scope} does not apply in environment '${env.name}' (tier ${kind ?? "none"}); the service will not see it`);
    }
    if (v.value === "") warnings.push(`${v.key}: the value is empty`);
  }
  if (changed) services(emu).update(svc.id, { updatedAt: emu.now() });
  return { changed, warnings, needsRedeploy: changed && deploysOf(emu, svc.id).length > 0 };
}

export function deleteEnvVar(emu: Emu, svc: Service, key: string) {
  const old = envVars(emu).get(envRowId(svc.id, key));
  if (!old) throw notFound("Env var", key);
  if (old.linkedFrom) throw conflict(`${key} is linked from database service ${old.linkedFrom}; it goes away when that link does`);
  envVars(emu).delete(old.id);
  return { warnings: [] as string[], needsRedeploy: deploysOf(emu, svc.id).length > 0 };
}

// ---- linked connection strings ----
const APP_TYPES: ServiceType[] = ["WEB", "STATIC", "CRON"];

function link(emu: Emu, db: Service, app: Service): void {
  if (!db.db?.injectConnectionUrl || !APP_TYPES.includes(app.type)) return;
  const key = db.db.connectionEnvName;
  const id = envRowId(app.id, key);
  const existing = envVars(emu).get(id);
  // A key the app set itself wins: links never overwrite a user's value.
  if (existing && existing.linkedFrom !== db.id) return;
  envVars(emu).insert({ id, serviceId: app.id, key, value: connection(db).url, scope: "ALL", secret: true, linkedFrom: db.id });
}

/** The database's address changed (its real listener opened): its links follow. */
export function relink(emu: Emu, db: Service): void {
  const url = connection(db).url;
  for (const v of envVars(emu).where((r) => r.linkedFrom === db.id)) if (v.value !== url) envVars(emu).update(v.id, { value: url });
}

/** A new app gets the links of the environment's databases. */
function linkInto(emu: Emu, app: Service): void {
  for (const db of servicesIn(emu, app.environmentId)) if (db.id !== app.id && isDatabase(db.type)) link(emu, db, app);
}

/** A new database links into the apps already there. */
function linkFrom(emu: Emu, db: Service): void {
  for (const app of servicesIn(emu, db.environmentId)) if (app.id !== db.id) link(emu, db, app);
}

// ---- secret files ----
const fileRowId = (serviceId: string, path: string) => `${serviceId}:${path}`;

export const secretFileView = (r: SecretFileRow, blank: boolean) => ({ path: r.path, content: blank ? "" : r.content });

function putFileRow(emu: Emu, svc: Service, f: z.infer<typeof secretFileInput>): boolean {
  const id = fileRowId(svc.id, f.path);
  const old = secretFiles(emu).get(id);
  if (old && old.content === f.content) return false;
  secretFiles(emu).insert({ id, serviceId: svc.id, path: f.path, content: f.content });
  return true;
}

export function putSecretFile(emu: Emu, svc: Service, f: z.infer<typeof secretFileInput>) {
  const changed = putFileRow(emu, svc, f);
  if (changed) services(emu).update(svc.id, { updatedAt: emu.now() });
  return { needsRedeploy: changed && deploysOf(emu, svc.id).length > 0 };
}

export function deleteSecretFile(emu: Emu, svc: Service, path: string) {
  const old = secretFiles(emu).get(fileRowId(svc.id, path));
  if (!old) throw notFound("Secret file", path);
  secretFiles(emu).delete(old.id);
  return { needsRedeploy: deploysOf(emu, svc.id).length > 0 };
}

// ---- connection ----
const ENGINES: Record<string, { scheme: string; port: number }> = {
  POSTGRES: { scheme: "postgresql", port: 5432 },
  MYSQL: { scheme: "mysql", port: 3306 },
  MARIADB: { scheme: "mariadb", port: 3306 },
  MONGODB: { scheme: "mongodb", port: 27017 },
  REDIS: { scheme: "redis", port: 6379 },
  VALKEY: { scheme: "redis", port: 6379 },
};

export function connection(svc: Service) {
  const engine = ENGINES[svc.type];
  const db = svc.db!;
  // A POSTGRES service has a real listener on loopback; other engines get a placeholder address.
  const host = db.endpoint?.host ?? `${slug(svc.name)}-${svc.id.slice(0, 8)}.internal`;
  const port = db.endpoint?.port ?? engine.port;
  const auth = `${encodeURIComponent(db.user)}:${encodeURIComponent(db.password)}`;
  return {
    scheme: engine.scheme,
    host,
    port,
    database: db.name,
    username: db.user,
    password: db.password,
    url: `${engine.scheme}://${auth}@${host}:${port}/${db.name}`,
    externalUrl: null as string | null,
  };
}

/** 404 unless a provisioned database; the password is empty for a read-only role. */
export function connectionView(emu: Emu, svc: Service, blank: boolean) {
  if (!isDatabase(svc.type) || !svc.db) throw notFound("Connection for service", svc.id);
  if (serviceStatus(emu, svc) === "PROVISIONING") {
    throw notFound("Connection for service", `${svc.id} (still provisioning)`);
  }
  const c = connection(svc);
  if (!blank) return c;
  return { ...c, password: "", url: c.url.replace(/:[^:@/]*@/, ":@") };
}

// ---- build detection (best effort) ----
export interface DetectQuery {
  gitUrl?: string;
  repoFullName?: string;
  branch?: string;
  rootDir?: string;
}

interface DetectedBuild {
  runtime: string | null; runtimeVersion: string | null; framework: string | null; packageManager: string | null;
  buildCommand: string | null; startCommand: string | null; port: number | null; staticOutputDir: string | null;
  staticSpa: boolean | null; monorepoStrategy: string | null; workspaceName: string | null; watchPaths: string[];
}
const NULL_BUILD: DetectedBuild = {
  runtime: null, runtimeVersion: null, framework: null, packageManager: null, buildCommand: null, startCommand: null,
  port: null, staticOutputDir: null, staticSpa: null, monorepoStrategy: null, workspaceName: null, watchPaths: [] as string[],
};

/** Recognises a few repository names; anything else cannot be inspected and comes back null. */
export function detectBuild(q: DetectQuery): DetectedBuild {
  const name = (q.repoFullName ?? q.gitUrl ?? "").toLowerCase();
  if (!name || name.includes("does-not-exist") || name.includes("private")) return { ...NULL_BUILD };
  const node = { runtime: "node", runtimeVersion: "20", packageManager: "npm", buildCommand: "npm ci && npm run build", startCommand: "npm start", port: 3000 };
  if (name.includes("next")) return { ...NULL_BUILD, ...node, framework: "nextjs", startCommand: "npm run start" };
  if (name.includes("vite") || name.includes("static") || name.includes("site")) {
    return { ...NULL_BUILD, ...node, framework: "vite", startCommand: null, port: null, staticOutputDir: "dist", staticSpa: true };
  }
  if (name.includes("django") || name.includes("flask") || name.includes("python")) {
    return { ...NULL_BUILD, runtime: "python", runtimeVersion: "3.12", framework: name.includes("django") ? "django" : "flask", packageManager: "pip", buildCommand: "pip install -r requirements.txt", startCommand: "gunicorn app:app", port: 8000 };
  }
  if (name.includes("express") || name.includes("node") || name.includes("api") || name.includes("app")) return { ...NULL_BUILD, ...node, framework: name.includes("express") ? "express" : null };
  return { ...NULL_BUILD };
}

export function detectApps(q: DetectQuery) {
  if (!q.gitUrl && !q.repoFullName) return { status: "NOT_FOUND", workspace: false, orchestrator: null, truncated: false, apps: [] };
  if (q.gitUrl && !/^https:\/\/(www\.)?github\.com\//.test(q.gitUrl)) {
    return { status: "NOT_GITHUB_HOST", workspace: false, orchestrator: null, truncated: false, apps: [] };
  }
  const name = (q.repoFullName ?? q.gitUrl ?? "").toLowerCase();
  if (name.includes("monorepo")) {
    const web = { ...detectBuild({ repoFullName: "web-next" }), monorepoStrategy: "WORKSPACE", workspaceName: "web", watchPaths: ["apps/web/**", "packages/**"] };
    const api = { ...detectBuild({ repoFullName: "api-express" }), monorepoStrategy: "WORKSPACE", workspaceName: "api", watchPaths: ["apps/api/**", "packages/**"] };
    return {
      status: "OK", workspace: true, orchestrator: "turbo", truncated: false,
      apps: [{ rootDir: "apps/web", name: "web", deployable: true, build: web }, { rootDir: "apps/api", name: "api", deployable: true, build: api }],
    };
  }
  const build = detectBuild(q);
  if (build.runtime === null) return { status: "NOT_FOUND", workspace: false, orchestrator: null, truncated: false, apps: [] };
  const app = name.split("/").pop()!.replace(/\.git$/, "");
  return { status: "OK", workspace: false, orchestrator: null, truncated: false, apps: [{ rootDir: q.rootDir ?? ".", name: app, deployable: true, build }] };
}

// ---- cascades ----
extendControl((_app, emu) => {
  // An environment (or its project) going away takes its services with it.
  emu.on("environment.deleting", (env: Environment) => {
    const inEnv = servicesIn(emu, env.id);
    for (const db of inEnv.filter((s) => isDatabase(s.type))) deleteService(emu, db);
    for (const svc of servicesIn(emu, env.id)) deleteService(emu, svc);
  });
  /** Test hook: how many times each service was deployed, without an API key. */
  controlRoute(_app, {
    method: "GET", url: "/_emulator/services",
    handler: () => ({ data: services(emu).all().map((s) => ({ id: s.id, name: s.name, type: s.type, deploys: deploysOf(emu, s.id).length })) }),
  });
});
