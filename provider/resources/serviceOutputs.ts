// A Service's outputs, read from the platform: the service, the env vars and secret files the
// program declares (an import adopts them all), the connection of a database, the latest deploy.
import { regionKeyOf, type V1Service } from "../api/services";
import { serviceApi } from "../api/endpoints/services";
import { compact, type Context, findOrUndefined } from "./framework";
import { latestDeployIfAllowed } from "./deploy-wait";
import { envVarItemOf, normaliseEnvVars, ownEnvVars, secretFilesOf, sortFiles } from "./serviceConfig";
import { type EnvVarItem, isDatabase, type SecretFileItem, serviceInputs, type ServiceInputs, type ServiceOutputs } from "./serviceSchema";

/** What the program declared (inputs) or last recorded (outputs); both carry the declared keys. */
export type Declared = Partial<Omit<ServiceInputs, "type" | "region">> & { type?: string; region?: string | null };

export function findService(ctx: Context, id: string): Promise<V1Service | undefined> {
  return findOrUndefined(() => serviceApi.get(ctx.client, id));
}

/**
 * The live service as outputs. Only the env vars and secret files `declared` lists are reported:
 * linked keys and keys managed elsewhere are never drift. A blanked value (read-only key) keeps
 * the last known one. An import adopts every variable the service holds (linked ones excepted)
 * and every secret file.
 */
export async function readOutputs(
  ctx: Context,
  id: string,
  declared: Declared,
  pendingRedeploy: boolean,
  pendingSinceDeployId: string | null = null,
  importing = false,
): Promise<ServiceOutputs | undefined> {
  const svc = await findService(ctx, id);
  if (!svc) return undefined;
  const liveVars = importing || declared.envVars !== undefined ? await ownEnvVars(ctx.client, id) : [];
  const liveFiles = importing || declared.secretFiles !== undefined ? await secretFilesOf(ctx.client, id) : [];
  if (importing && liveVars.length) declared = { ...declared, envVars: liveVars.map(envVarItemOf) };
  if (importing && liveFiles.length) declared = { ...declared, secretFiles: sortFiles(liveFiles.map((f) => ({ path: f.path, content: f.content ?? "" }))) };

  let envVars: EnvVarItem[] | undefined;
  if (declared.envVars !== undefined) {
    envVars = [];
    for (const want of declared.envVars ?? []) {
      const got = liveVars.find((v) => v.key === want.key);
      if (!got) continue;
      const blanked = (got.value ?? "") === "" && want.value !== "" && got.secret;
      envVars.push({ ...envVarItemOf(got), value: blanked ? want.value : (got.value ?? "") });
    }
    envVars = normaliseEnvVars(envVars);
  }
  let secretFiles: SecretFileItem[] | undefined;
  if (declared.secretFiles !== undefined) {
    secretFiles = [];
    for (const want of declared.secretFiles ?? []) {
      const got = liveFiles.find((f) => f.path === want.path);
      if (got) secretFiles.push({ path: got.path, content: (got.content ?? "") === "" ? want.content : got.content! });
    }
  }
  let connection: ServiceOutputs["connection"] = null;
  if (isDatabase(svc.type)) {
    const c = await findOrUndefined(() => serviceApi.connection(ctx.client, id));
    if (c) {
      connection = {
        scheme: c.scheme, host: c.host, port: c.port, database: c.database ?? null, username: c.username ?? null,
        password: c.password || declared.dbPassword || null, url: c.url ?? null, externalUrl: c.externalUrl ?? null,
      };
    }
  }
  const deploy = await latestDeployIfAllowed(ctx, id);
  // A pending redeploy is picked up by any newer deploy, whoever started it.
  const pending = pendingRedeploy && (!pendingSinceDeployId || !deploy || deploy.id === pendingSinceDeployId);
  return toOutputs(svc, declared, { envVars, secretFiles, connection, deployId: deploy?.id ?? null, deployStatus: deploy?.status ?? null, pending }, importing);
}

function toOutputs(
  s: V1Service,
  declared: Declared,
  live: { envVars?: EnvVarItem[]; secretFiles?: SecretFileItem[]; connection: ServiceOutputs["connection"]; deployId: string | null; deployStatus: string | null; pending: boolean },
  importing = false,
): ServiceOutputs {
  const region = regionKeyOf(s.region);
  const label = s.region && typeof s.region === "object" ? (s.region.label ?? null) : null;
  // Optional settings the platform defaults are reported only when the program declares them, so
  // an unset one is neither drift nor noise in a refresh.
  // An import reports them all: the program that adopts the service may declare any of them.
  const d = <T>(key: keyof ServiceInputs, value: T): T | undefined => (importing || declared[key] !== undefined ? value : undefined);
  return compact({
    environmentId: s.environmentId,
    name: s.name,
    type: s.type,
    region,
    regionLabel: label,
    tier: d("tier", (s.tier ?? undefined) as ServiceInputs["tier"]),
    sourceType: d("sourceType", (s.source.type ?? undefined) as ServiceInputs["sourceType"]),
    repoFullName: s.source.repoFullName ?? undefined,
    gitUrl: s.source.gitUrl ?? undefined,
    image: s.source.image ?? undefined,
    imageCommand: d("imageCommand", s.source.imageCommand ?? undefined),
    installationId: declared.installationId,
    branch: d("branch", s.source.branch ?? undefined),
    rootDir: d("rootDir", s.source.rootDir ?? undefined),
    monorepoStrategy: d("monorepoStrategy", (s.build.monorepoStrategy ?? undefined) as ServiceInputs["monorepoStrategy"]),
    watchPaths: d("watchPaths", s.build.watchPaths ?? undefined),
    port: d("port", s.port ?? undefined),
    healthCheckPath: d("healthCheckPath", s.healthCheckPath ?? undefined),
    buildCommand: d("buildCommand", s.build.buildCommand ?? undefined),
    startCommand: d("startCommand", s.build.startCommand ?? undefined),
    runtimeVersion: d("runtimeVersion", s.build.runtimeVersion ?? undefined),
    staticOutputDir: d("staticOutputDir", s.build.staticOutputDir ?? undefined),
    staticSpa: d("staticSpa", s.build.staticSpa ?? undefined),
    subdomain: declared.subdomain,
    schedule: s.cron?.schedule ?? undefined,
    command: d("command", s.cron?.command ?? undefined),
    envVars: live.envVars,
    secretFiles: live.secretFiles,
    dbName: declared.dbName,
    dbUser: declared.dbUser,
    dbPassword: declared.dbPassword,
    connectionEnvName: declared.connectionEnvName,
    injectConnectionUrl: declared.injectConnectionUrl,
    suspended: declared.suspended === undefined ? undefined : s.suspension !== "NONE",
    cronSuspended: declared.cronSuspended === undefined ? undefined : (s.cron?.suspended ?? false),
    previewsEnabled: declared.previewsEnabled === undefined ? undefined : (s.previewsEnabled ?? false),
    waitForDeploy: declared.waitForDeploy,
    redeployOnChange: declared.redeployOnChange,
    timeout: declared.timeout,
    status: s.status,
    health: s.health,
    suspension: s.suspension,
    url: s.url ?? null,
    runtime: s.runtime ?? null,
    framework: s.framework ?? null,
    latestDeployId: live.deployId,
    latestDeployStatus: live.deployStatus,
    lastDeployedAt: s.lastDeployedAt ?? null,
    pendingRedeploy: live.pending,
    connection: live.connection,
    createdAt: s.createdAt ?? null,
  }) as ServiceOutputs;
}

/** region is left out: it is resolved by the platform when the program does not set it. */
export function toInputs(o: ServiceOutputs): ServiceInputs {
  const keys = (Object.keys(serviceInputs.shape) as (keyof ServiceInputs)[]).filter((k) => k !== "region");
  return compact(Object.fromEntries(keys.map((k) => [k, o[k] ?? undefined]))) as ServiceInputs;
}

