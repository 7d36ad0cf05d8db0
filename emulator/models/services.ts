// Services (infrastructure routes §2.3, §4.3): create, update, suspend and delete. Lifecycles are
// computed on read from timestamps on the emulator clock, scaled by settings.speed. Env vars and
// secret files are in service-env.ts, connections and links in service-links.ts, build detection
// in build-detect.ts, the views in service-views.ts, and deleting one (with what it takes along) in cascades.ts.
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { Emu } from "../emu";
import { badRequest, conflict } from "../errors";
import { newId } from "../store";
import { findRegion, type Tier } from "./catalogue";
import { checkSchedule } from "./cron";
import { queueDeploy } from "./deploys";
import { isDatabase, type Service, type ServiceSource, services, servicesByName, servicesBySubdomain, servicesIn } from "./lifecycle";
import { checkRegion, type Environment, type Project } from "./projects";
import { detectBuild } from "./build-detect";
import type { CreateServiceBody, patchServiceBody } from "./service-bodies";
import { putFileRow, upsertEnvRow } from "./service-env";
import { linkFrom, linkInto } from "./service-links";

// Routes and other models read the service rows through this module.
export {
  DATABASE_TYPES, effectiveEnv, envVarsOf, getService, isDatabase, SERVICE_TYPES, secretFilesOf, services, servicesIn,
  serviceHost, serviceStatus, serviceUrl, speedMs,
} from "./lifecycle";
export type { DatabaseSettings, EnvVarRow, SecretFileRow, Service, ServiceBuild, ServiceSource, ServiceType } from "./lifecycle";

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
  const clash = servicesByName(emu).list(`${env.id} ${body.name.toLowerCase()}`)[0];
  if (clash) throw conflict(`name: environment ${env.id} already has a service named '${clash.name}' (${clash.id})`);
  if (body.subdomain && servicesBySubdomain(emu).list(body.subdomain).length) {
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
  for (const v of body.envVars ?? []) upsertEnvRow(emu, svc, v);
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
  const used = services(emu).index("free", { group: (s) => (s.tier === "FREE" ? s.workspaceId : undefined) }).list(workspaceId).find((s) => s.id !== except);
  if (used) {
    throw conflict(`tier: the workspace's free slot is already used by service '${used.name}' (${used.id}); a workspace has one FREE service. Choose STARTER, STANDARD or PRO, or delete that service first`);
  }
}

// ---- update ----
export function patchService(emu: Emu, svc: Service, input: z.infer<typeof patchServiceBody>): Service {
  const patch: Partial<Service> = { updatedAt: emu.now() };
  if (input.name !== undefined && input.name !== svc.name) {
    const clash = servicesByName(emu).list(`${svc.environmentId} ${input.name.toLowerCase()}`).find((s) => s.id !== svc.id);
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


