// Service: a web app, static site, cron job or database in an environment (infrastructure routes
// §2.3-2.4, §4.3-4.5). Env vars and secret files go in the create body, so the first deploy has
// them; later changes go through their own routes and redeploy only when asked to.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  DATABASE_TYPES, regionKeyOf, V1Connection, V1EnvVar, V1EnvVarChange, V1SecretFile, V1SecretFileChange, V1Service,
} from "../api/services";
import {
  checkWith, type CheckFailure, compact, type Context, defineResource, deleteIgnoringNotFound, diffWith, findOrUndefined,
  isImport, isUnknown, ResourceInitError, type Rule, same,
} from "./framework";
import { DeployFailedError, latestDeploy, latestDeployIfAllowed, waitForDeploy, waitNeedsDeploys } from "./deploy-wait";
import { cronProblem, duration, id, name, regionKey } from "./rules";
import { parseDuration, waitBudgetMs } from "./waiter";

// ---- schemas ----
export const SERVICE_TYPES = ["WEB", "STATIC", "CRON", "POSTGRES", "MYSQL", "MARIADB", "MONGODB", "REDIS", "VALKEY"] as const;
export const ENV_SCOPES = ["ALL", "PROD", "UAT", "DEV"] as const;
const DB_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const ENV_KEY_RULE = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;
const str = (what: string) => z.string({ error: "must be a string" }).describe(what);

export const envVarItem = z.object({
  key: z.string({ error: "must be a string" }).regex(ENV_KEY_RULE, "must start with a letter or '_' and hold only letters, digits and '_'").describe("Variable name."),
  value: str("Value. Secret in state when `secret` is true, or when the program gives it as a secret; otherwise plain, so its changes and drift show.").max(32_768, "must be at most 32768 characters"),
  scope: z.enum(ENV_SCOPES, { error: "must be one of ALL, PROD, UAT, DEV" }).optional().describe("Environment tier the variable applies in; default ALL."),
  secret: z.boolean({ error: "must be a boolean" }).optional().describe("Hide the value from read-only members, and keep it secret in state; default false."),
});
export type EnvVarItem = z.infer<typeof envVarItem>;
export const secretFileItem = z.object({
  path: z.string({ error: "must be a string" }).min(1, "must not be empty")
    .regex(/^[A-Za-z0-9_.\/-]{1,255}$/, "must be 1 to 255 characters: letters, digits, '_', '.', '/' or '-'")
    .refine((p) => !p.split("/").includes(".."), "must not contain '..'")
    .describe("Path the file is mounted at."),
  content: str("File content. Always secret.").max(512 * 1024, "must be at most 512 KiB"),
});
export type SecretFileItem = z.infer<typeof secretFileItem>;

export const serviceInputs = z.object({
  environmentId: id("Environment the service runs in. Changing it replaces the service."),
  name: name("Service name, unique within the environment. Changing it renames in place."),
  type: z.enum(SERVICE_TYPES, { error: `must be one of ${SERVICE_TYPES.join(", ")}` }).describe("WEB, STATIC, CRON or a database engine. Changing it replaces the service."),
  region: regionKey.describe("Region key; defaults to the project's region. Changing it replaces the service.").optional(),
  tier: z.enum(["FREE", "STARTER", "STANDARD", "PRO"], { error: "must be one of FREE, STARTER, STANDARD, PRO" }).optional().describe("Instance size; FREE uses the workspace's single free slot. Changing it replaces the service."),
  sourceType: z.enum(["REPO_APP", "PUBLIC_GIT", "CONTAINER_IMAGE"], { error: "must be one of REPO_APP, PUBLIC_GIT, CONTAINER_IMAGE" }).optional().describe("Inferred from image, gitUrl or repoFullName when omitted."),
  repoFullName: str("owner/name of a repository the repository app can see (REPO_APP).").regex(/^[\w.-]+\/[\w.-]+$/, "must be owner/name").optional(),
  gitUrl: str("Public HTTPS git URL (PUBLIC_GIT).").regex(/^https:\/\/\S+$/, "must be a public HTTPS git URL (https://...)").optional(),
  image: str("Public container image (CONTAINER_IMAGE). Changing it redeploys in place.").min(1, "must not be empty").max(512, "must be at most 512 characters").optional(),
  imageCommand: str("Command the image runs instead of its default.").max(1024, "must be at most 1024 characters").optional(),
  installationId: str("Repository app installation, with repoFullName.").max(128, "must be at most 128 characters").optional(),
  branch: str("Branch to build.").max(255, "must be at most 255 characters").optional(),
  rootDir: str("Folder inside the repository.").max(255, "must be at most 255 characters").optional(),
  monorepoStrategy: z.enum(["ISOLATED", "WORKSPACE"], { error: "must be ISOLATED or WORKSPACE" }).optional().describe("How a monorepo member is built."),
  watchPaths: z.array(z.string({ error: "must be a string" }).max(255, "must be at most 255 characters")).max(50, "must have at most 50 entries").optional().describe("Paths whose changes trigger a build."),
  port: z.number({ error: "must be a number" }).int("must be an integer").min(1, "must be 1 to 65535").max(65535, "must be 1 to 65535").optional().describe("Port the app listens on."),
  healthCheckPath: z.string({ error: "must be a string" }).regex(/^\//, "must start with '/'").max(255, "must be at most 255 characters").optional().describe("Path the platform probes before a deploy goes live."),
  buildCommand: str("Build command.").max(1024, "must be at most 1024 characters").optional(),
  startCommand: str("Start command.").max(1024, "must be at most 1024 characters").optional(),
  runtimeVersion: str("Runtime version, e.g. '20' for Node.").max(64, "must be at most 64 characters").optional(),
  staticOutputDir: str("Folder a STATIC build publishes.").max(255, "must be at most 255 characters").optional(),
  staticSpa: z.boolean({ error: "must be a boolean" }).optional().describe("Serve index.html for unknown paths (single-page app)."),
  subdomain: z.string({ error: "must be a string" }).regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "must be a DNS label: lowercase letters, digits and '-'").optional().describe("Platform subdomain. Changing it replaces the service."),
  schedule: str("CRON only: five-field cron expression, in UTC. Updates in place.").optional(),
  command: str("CRON only: command each run executes. Updates in place.").max(4096, "must be at most 4096 characters").optional(),
  envVars: z.array(envVarItem).max(500, "must have at most 500 entries").optional().describe("Variables this service declares; they reach the first deploy. Only these keys are managed: linked and other keys are left alone."),
  secretFiles: z.array(secretFileItem).max(50, "must have at most 50 entries").optional().describe("Secret files this service declares; they reach the first deploy."),
  dbName: str("Databases: database name. Changing it replaces the service.").regex(DB_IDENTIFIER, "must be a database identifier (letters, digits, '_'; at most 63)").optional(),
  dbUser: str("Databases: user name. Changing it replaces the service.").regex(DB_IDENTIFIER, "must be a user identifier (letters, digits, '_'; at most 63)").optional(),
  dbPassword: str("Databases: password; generated when omitted. Always secret. Changing it replaces the service.")
    .min(12, "must be at least 12 characters").max(128, "must be at most 128 characters").optional(),
  connectionEnvName: z.string({ error: "must be a string" }).regex(ENV_KEY_RULE, "must be an env var key").optional().describe("Databases: variable the connection URL is linked in as; default DATABASE_URL. Changing it replaces the service."),
  injectConnectionUrl: z.boolean({ error: "must be a boolean" }).optional().describe("Databases: link the connection URL into the environment's other services, read-only there. Changing it replaces the service."),
  suspended: z.boolean({ error: "must be a boolean" }).optional().describe("Suspend (true) or resume (false) the service."),
  cronSuspended: z.boolean({ error: "must be a boolean" }).optional().describe("CRON only: pause (true) or resume (false) scheduled runs."),
  previewsEnabled: z.boolean({ error: "must be a boolean" }).optional().describe("Open a preview environment for every pull request (true) or not (false)."),
  waitForDeploy: z.boolean({ error: "must be a boolean" }).optional().describe("Wait for the deploy to be RUNNING after create and after changes that redeploy; default true."),
  redeployOnChange: z.boolean({ error: "must be a boolean" }).optional().describe("Redeploy when env vars, secret files or build settings change; default false (pendingRedeploy shows it is due)."),
  timeout: duration("How long to wait for a deploy, e.g. '90s' or '15m'; default '10m'.").optional(),
});
export type ServiceInputs = z.infer<typeof serviceInputs>;

const connectionOutput = z.object({
  scheme: z.string(), host: z.string(), port: z.number(), database: z.string().nullable(), username: z.string().nullable(),
  password: z.string().nullable(), url: z.string().nullable(), externalUrl: z.string().nullable(),
});

export const serviceOutputs = serviceInputs.partial().extend({
  environmentId: z.string().describe("Environment the service runs in."),
  name: z.string().describe("Service name."),
  type: z.string().describe("Service type."),
  region: z.string().nullable().describe("Region the service was placed in (resolved when not set)."),
  regionLabel: z.string().nullable().describe("Human name of the region."),
  status: z.string().describe("PROVISIONING, ACTIVE or ERROR."),
  health: z.string().describe("HEALTHY, CRASH_LOOPING, STOPPED, MISSING or UNKNOWN."),
  suspension: z.string().describe("NONE, USER, BILLING or ABUSE."),
  url: z.string().nullable().describe("Public URL; null for databases and cron jobs."),
  runtime: z.string().nullable().describe("Detected runtime."),
  framework: z.string().nullable().describe("Detected framework."),
  latestDeployId: z.string().nullable().describe("The newest deploy."),
  latestDeployStatus: z.string().nullable().describe("Its status."),
  lastDeployedAt: z.string().nullable().describe("When a deploy last went live."),
  pendingRedeploy: z.boolean().describe("True when env vars, secret files or build settings changed and no deploy has picked them up yet."),
  connection: connectionOutput.nullable().describe("Databases: connection details. Always secret."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
});
export type ServiceOutputs = z.infer<typeof serviceOutputs>;

const BUILD_KEYS = ["buildCommand", "startCommand", "runtimeVersion", "rootDir", "healthCheckPath", "port", "monorepoStrategy", "staticOutputDir", "staticSpa", "watchPaths"] as const;
const SOURCE_KEYS = ["sourceType", "repoFullName", "installationId", "gitUrl", "branch", "image", "imageCommand"] as const;
const DB_KEYS = ["dbName", "dbUser", "dbPassword", "connectionEnvName", "injectConnectionUrl"] as const;
const DIFF = {
  update: ["name", ...BUILD_KEYS, ...SOURCE_KEYS, "envVars", "secretFiles", "schedule", "command", "suspended", "cronSuspended", "previewsEnabled", "waitForDeploy", "redeployOnChange", "timeout"],
  replace: ["environmentId", "type", "region", "tier", "subdomain", ...DB_KEYS],
  // Unset means "whatever the platform chose or detected": no drift, no change.
  defaulted: ["region", "tier", "sourceType", "branch", "port", "buildCommand", "startCommand", "runtimeVersion", "staticOutputDir", "staticSpa", "monorepoStrategy", "watchPaths", "rootDir", "healthCheckPath", "imageCommand", "installationId", "subdomain", "command", "suspended", "cronSuspended", "previewsEnabled", "waitForDeploy", "redeployOnChange", "timeout", ...DB_KEYS],
};
const DEFAULT_TIMEOUT = "10m";
const isDatabase = (t: string | undefined) => !!t && DATABASE_TYPES.includes(t);

export const Service = defineResource<ServiceInputs, ServiceOutputs>({
  token: "cloudplatform:index:Service",
  description: "A service in an environment: a web app, static site, cron job or database, with its env vars and secret files. Waits for its deploy to go live.",
  inputs: serviceInputs,
  outputs: serviceOutputs,
  deleteBeforeReplace: true,
  importId: {
    format: "<serviceId>",
    note: "The import adopts every env var the service holds (linked ones excepted) and every secret file; values of secret variables stay secret.",
  },
  secretOutputs: ["dbPassword", "connection"],
  // Each secret variable's value and each file's content, not the whole lists: a change to another
  // variable shows in the diff, and code generated by an import wraps just those in pulumi.secret.
  secretPaths: (p) => [
    ...listOf<EnvVarItem>(p.envVars).flatMap((v, i) => (v?.secret === true ? [["envVars", i, "value"]] : [])),
    ...listOf<SecretFileItem>(p.secretFiles).map((_, i) => ["secretFiles", i, "content"]),
  ],
  stableOutputs: stableOutputs,

  // ---- check ----
  check(_olds, news) {
    const r = checkWith<ServiceInputs>(serviceInputs, news, rules);
    if (r.inputs) {
      const i = r.inputs as Record<string, unknown>;
      // Declared order does not matter: keep lists sorted, with defaults filled, so diffs stay quiet.
      if (Array.isArray(i.envVars)) i.envVars = normaliseEnvVars(i.envVars as EnvVarItem[]);
      if (Array.isArray(i.secretFiles)) i.secretFiles = [...(i.secretFiles as SecretFileItem[])].sort((a, b) => cmp(a.path, b.path));
    }
    return r;
  },

  // ---- diff ----
  diff(_id, olds, news) {
    const d = diffWith(olds, news, DIFF);
    // Names are unique within an environment (and FREE has one slot): when the replacement keeps
    // them, the old service must go first.
    const keepsName = same(olds.name, news.name) && same(olds.environmentId, news.environmentId);
    return { ...d, deleteBeforeReplace: (d.replaces?.length ?? 0) > 0 && (keepsName || news.tier === "FREE") };
  },

  // ---- create ----
  async create(ctx, inputs) {
    const budget = waitBudgetMs(ctx, inputs.timeout, parseDuration(DEFAULT_TIMEOUT));
    const body = compact({
      name: inputs.name, type: inputs.type, region: inputs.region, tier: inputs.tier, sourceType: inputs.sourceType,
      repoFullName: inputs.repoFullName, gitUrl: inputs.gitUrl, image: inputs.image, imageCommand: inputs.imageCommand,
      installationId: inputs.installationId, branch: inputs.branch, rootDir: inputs.rootDir, monorepoStrategy: inputs.monorepoStrategy,
      watchPaths: inputs.watchPaths, port: inputs.port, healthCheckPath: inputs.healthCheckPath, buildCommand: inputs.buildCommand,
      startCommand: inputs.startCommand, runtimeVersion: inputs.runtimeVersion, staticOutputDir: inputs.staticOutputDir,
      staticSpa: inputs.staticSpa, subdomain: inputs.subdomain, schedule: inputs.schedule, command: inputs.command,
      envVars: inputs.envVars, secretFiles: inputs.secretFiles, dbName: inputs.dbName, dbUser: inputs.dbUser,
      dbPassword: inputs.dbPassword, connectionEnvName: inputs.connectionEnvName, injectConnectionUrl: inputs.injectConnectionUrl,
    });
    const svc = await ctx.client.create(`/v1/environments/${encodeURIComponent(inputs.environmentId)}/services`, body, {
      schema: V1Service, own: true, exists: async (made) => !!(await findService(ctx, made.id)),
    });
    ctx.log(`${svc.name}: created ${svc.id}; first deploy queued`);
    try {
      if (inputs.waitForDeploy !== false) {
        const first = await latestDeploy(ctx, svc.id).catch((err) => Promise.reject(waitNeedsDeploys(err, `the first deploy of ${svc.name}`)));
        if (first) await waitForDeploy(ctx, svc.name, first.id, { timeoutMs: budget.ms, limit: budget.limit, secrets: secretsOf(inputs) });
      }
      if (inputs.cronSuspended && inputs.type === "CRON") await ctx.client.post(`${path(svc.id)}/cron/suspend`);
      if (inputs.suspended) await ctx.client.post(`${path(svc.id)}/suspend`);
      if (inputs.previewsEnabled !== undefined) await setPreviews(ctx, svc.id, inputs.previewsEnabled);
    } catch (err) {
      if (!(err instanceof DeployFailedError)) throw err;
      // The service exists: keep it in state with the reason, so the next `up` updates it.
      const outs = await readOutputs(ctx, svc.id, inputs, false).catch(() => undefined);
      const props = { ...(outs ?? { ...inputs, environmentId: inputs.environmentId }), connection: null };
      throw new ResourceInitError(err.message, svc.id, props, [err.message]);
    }
    const outs = await readOutputs(ctx, svc.id, inputs, false);
    if (!outs) throw new Error(`${inputs.name}: service ${svc.id} disappeared right after it was created`);
    return { id: svc.id, outs };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const outs = await readOutputs(ctx, id, olds, olds.pendingRedeploy ?? false, olds.latestDeployId ?? null, isImport(olds));
    if (!outs) return {};
    return { id, props: outs, inputs: toInputs(outs) };
  },

  // ---- update ----
  async update(ctx, id, olds, news) {
    const p = path(id);
    const budget = waitBudgetMs(ctx, news.timeout, parseDuration(DEFAULT_TIMEOUT));
    const suspendedAfter = news.suspended ?? olds.suspended ?? false;
    let needsRedeploy = false;
    if (olds.suspended && news.suspended === false) await ctx.client.post(`${p}/resume`);

    // Env vars: upsert what changed among the declared keys, delete keys no longer declared.
    const oldVars = new Map((olds.envVars ?? []).map((v) => [v.key, v]));
    const newVars = normaliseEnvVars(news.envVars ?? []);
    const upserts = newVars.filter((v) => !same(oldVars.get(v.key), v));
    if (upserts.length) {
      const r = await ctx.client.patch(`${p}/env-vars`, { envVars: upserts }, { schema: V1EnvVarChange, idempotencyKey: true });
      needsRedeploy ||= r.needsRedeploy;
      for (const w of r.warnings) ctx.log(`${news.name}: ${w}`);
    }
    for (const key of oldVars.keys()) {
      if (newVars.some((v) => v.key === key)) continue;
      await deleteIgnoringNotFound(async () => {
        const r = await ctx.client.request("DELETE", `${p}/env-vars/${encodeURIComponent(key)}`);
        needsRedeploy ||= V1EnvVarChange.safeParse(r.data).data?.needsRedeploy ?? true;
      });
    }

    // Secret files: PUT what changed, DELETE what is no longer declared.
    const oldFiles = new Map((olds.secretFiles ?? []).map((f) => [f.path, f]));
    const newFiles = news.secretFiles ?? [];
    for (const f of newFiles) {
      if (same(oldFiles.get(f.path), f)) continue;
      const r = await ctx.client.put(`${p}/secret-files`, { path: f.path, content: f.content }, { schema: V1SecretFileChange, idempotencyKey: true });
      needsRedeploy ||= r.needsRedeploy;
    }
    for (const filePath of oldFiles.keys()) {
      if (newFiles.some((f) => f.path === filePath)) continue;
      await deleteIgnoringNotFound(async () => {
        await ctx.client.delete(`${p}/secret-files`, { query: { path: filePath } });
        needsRedeploy = true;
      });
    }

    // Cron settings apply from the next scheduled run.
    const cron = compact({
      schedule: news.schedule !== undefined && news.schedule !== olds.schedule ? news.schedule : undefined,
      command: news.command !== undefined && news.command !== olds.command ? news.command : undefined,
    });
    if (Object.keys(cron).length) await ctx.client.patch(`${p}/cron`, cron);

    // Name, build and source: one PATCH. A source change deploys straight away.
    const body: Record<string, unknown> = {};
    if (news.name !== olds.name) body.name = news.name;
    const build = changedKeys(BUILD_KEYS, olds, news);
    if (Object.keys(build).length) {
      body.build = build;
      needsRedeploy = true;
    }
    const source = changedKeys(SOURCE_KEYS, olds, news);
    // A source the platform already has was sent by an earlier update that gave up waiting
    // (customTimeouts): its deploy is waited for, and no second one is started.
    const applied = Object.keys(source).length ? await appliedEarlier(ctx, id, source) : [];
    for (const k of applied) delete source[k];
    let redeployed = false;
    if (Object.keys(source).length) {
      body.source = { ...source, redeploy: !suspendedAfter };
      redeployed = !suspendedAfter;
    }
    const before = redeployed ? await latestDeployIfAllowed(ctx, id) : undefined;
    if (Object.keys(body).length) await ctx.client.patch(p, body, { schema: V1Service });
    if (!redeployed && applied.length && !suspendedAfter && news.waitForDeploy !== false) {
      const last = await latestDeployIfAllowed(ctx, id);
      // That deploy failed or was cancelled: this update deploys the source again.
      if (last && ["FAILED", "CANCELLED"].includes(last.status)) await ctx.client.post(`${p}/deploys`, undefined, { idempotencyKey: randomUUID() });
      redeployed = !!last;
    }
    if (!redeployed && needsRedeploy && news.redeployOnChange && !suspendedAfter) {
      // A deploy is an action, not an object the service owns: each one gets its own key.
      await ctx.client.post(`${p}/deploys`, undefined, { idempotencyKey: randomUUID() });
      redeployed = true;
    }

    if (redeployed && news.waitForDeploy !== false) {
      const d = await latestDeploy(ctx, id);
      if (d && d.id !== before?.id) {
        try {
          await waitForDeploy(ctx, news.name, d.id, { timeoutMs: budget.ms, limit: budget.limit, secrets: secretsOf(news) });
        } catch (err) {
          // Update errors keep the previous state; the next `up` applies the change again.
          if (err instanceof DeployFailedError) throw new Error(err.message);
          throw err;
        }
      }
    }

    if (news.type === "CRON" && news.cronSuspended !== undefined && news.cronSuspended !== (olds.cronSuspended ?? false)) {
      await ctx.client.post(`${p}/cron/${news.cronSuspended ? "suspend" : "resume"}`);
    }
    if (news.suspended && !olds.suspended) await ctx.client.post(`${p}/suspend`);
    if (news.previewsEnabled !== undefined && news.previewsEnabled !== olds.previewsEnabled) await setPreviews(ctx, id, news.previewsEnabled);

    const pending = !redeployed && (needsRedeploy || (olds.pendingRedeploy ?? false));
    const outs = await readOutputs(ctx, id, news, pending, needsRedeploy ? null : (olds.latestDeployId ?? null));
    if (!outs) throw new Error(`${news.name}: service ${id} was deleted while it was being updated`);
    return { outs };
  },

  // ---- delete ----
  async delete(ctx, id) {
    await deleteIgnoringNotFound(() => ctx.client.delete(path(id)));
  },
});

// ---- what an update leaves alone ----
/** The outputs an update from `olds` to `news` cannot change (see update above). */
function stableOutputs(olds: ServiceOutputs, news: ServiceInputs): string[] {
  const o = olds as Record<string, unknown>;
  const n = news as Record<string, unknown>;
  const changed = (k: string) => isUnknown(n[k]) || !same(o[k], n[k]);
  const stable = ["regionLabel", "createdAt", "connection"];
  // The URL names the service unless it has a subdomain.
  if (!changed("name") || olds.subdomain || (olds.type !== "WEB" && olds.type !== "STATIC")) stable.push("url");
  const source = SOURCE_KEYS.some(changed);
  const settings = ["envVars", "secretFiles", ...BUILD_KEYS].some(changed);
  const redeploys = source || (settings && (n.redeployOnChange === true || isUnknown(n.redeployOnChange)));
  if (!redeploys && !changed("suspended")) stable.push("status", "health", "latestDeployId", "latestDeployStatus", "lastDeployedAt");
  if (!source) stable.push("runtime", "framework");
  if (!changed("suspended")) stable.push("suspension");
  if (!settings && !redeploys) stable.push("pendingRedeploy");
  return stable;
}

// ---- check rules ----
// One rule per concern: each runs as soon as the properties it reads are known (framework.ts).
const fail = (property: string, reason: string): CheckFailure[] => [{ property, reason: `${property}: ${reason}` }];
const rules: Rule<ServiceInputs>[] = [
  (i) => (i.type === "CRON" && !i.schedule ? fail("schedule", "is required for a CRON service (five-field cron expression, UTC)") : []),
  ...(["schedule", "command", "cronSuspended"] as const).map((k): Rule<ServiceInputs> => (i) =>
    i[k] !== undefined && i.type !== "CRON" ? fail(k, `applies to CRON services only, not ${i.type}`) : []),
  (i) => {
    const problem = i.schedule === undefined ? undefined : cronProblem(i.schedule);
    return problem ? fail("schedule", problem) : [];
  },
  ...DB_KEYS.map((k): Rule<ServiceInputs> => (i) =>
    i[k] !== undefined && !isDatabase(i.type) ? fail(k, `applies to database services only, not ${i.type}`) : []),
  ...(["image", "gitUrl", "repoFullName"] as const).map((k): Rule<ServiceInputs> => (i) =>
    i[k] !== undefined && isDatabase(i.type) ? fail(k, `a ${i.type} service runs the platform's engine image; leave ${k} out`) : []),
  // A STATIC service built by the platform needs one too (a folder to publish is a StaticSite).
  (i) => (!isDatabase(i.type) && !i.image && !i.gitUrl && !i.repoFullName
    ? fail("image", `a ${i.type} service needs a source: set image, gitUrl or repoFullName${i.type === "STATIC" ? " (to publish a local folder, use StaticSite)" : ""}`) : []),
  (i) => {
    const needs = { CONTAINER_IMAGE: "image", PUBLIC_GIT: "gitUrl", REPO_APP: "repoFullName" } as const;
    // A database runs the platform's engine image: its sourceType is not read.
    const field = !isDatabase(i.type) && i.sourceType && needs[i.sourceType];
    return field && !i[field] ? fail(field, `is required when sourceType is ${i.sourceType}`) : [];
  },
  (i) => {
    const keys = new Set<string>();
    return (i.envVars ?? []).flatMap((v) => (keys.has(v.key) ? fail("envVars", `key ${v.key} is declared twice`) : (keys.add(v.key), [])));
  },
  (i) => {
    const paths = new Set<string>();
    return (i.secretFiles ?? []).flatMap((f) => (paths.has(f.path) ? fail("secretFiles", `path ${f.path} is declared twice`) : (paths.add(f.path), [])));
  },
];

// ---- finders ----
/** What the program declared (inputs) or last recorded (outputs); both carry the declared keys. */
type Declared = Partial<Omit<ServiceInputs, "type" | "region">> & { type?: string; region?: string | null };

export function findService(ctx: Context, id: string): Promise<V1Service | undefined> {
  return findOrUndefined(() => ctx.client.get(path(id), { schema: V1Service }));
}

const path = (id: string) => `/v1/services/${encodeURIComponent(id)}`;

/** The source keys whose new value the live service already has. */
async function appliedEarlier(ctx: Context, id: string, source: Record<string, unknown>): Promise<string[]> {
  const svc = await findService(ctx, id);
  if (!svc) return [];
  const live: Record<string, unknown> = { ...svc.source, sourceType: svc.source.type };
  return Object.keys(source).filter((k) => k !== "installationId" && live[k] !== undefined && same(live[k], source[k]));
}

const setPreviews = (ctx: Context, id: string, enabled: boolean) => ctx.client.put(`${path(id)}/previews-enabled`, { enabled });

/**
 * The live service as outputs. Only the env vars and secret files `declared` lists are reported:
 * linked keys and keys managed elsewhere are never drift. A blanked value (read-only key) keeps
 * the last known one.
 */
async function readOutputs(
  ctx: Context,
  id: string,
  declared: Declared,
  pendingRedeploy: boolean,
  pendingSinceDeployId: string | null = null,
  importing = false,
): Promise<ServiceOutputs | undefined> {
  const svc = await findService(ctx, id);
  if (!svc) return undefined;
  let envVars: EnvVarItem[] | undefined;
  if (importing) {
    // An import adopts every variable the service holds, except those linked in from elsewhere,
    // and every secret file.
    const live = await ctx.client.list(`${path(id)}/env-vars`, { item: V1EnvVar, query: { limit: 100 } });
    const own = live.filter((v) => !v.linked).map((v) => ({ key: v.key, value: v.value ?? "", scope: (v.scope ?? "ALL") as EnvVarItem["scope"], secret: v.secret }));
    if (own.length) declared = { ...declared, envVars: own };
    const files = await ctx.client.list(`${path(id)}/secret-files`, { item: V1SecretFile, query: { limit: 100 } });
    if (files.length) declared = { ...declared, secretFiles: files.map((f) => ({ path: f.path, content: f.content ?? "" })).sort((a, b) => cmp(a.path, b.path)) };
  }
  if (declared.envVars !== undefined) {
    const live = await ctx.client.list(`${path(id)}/env-vars`, { item: V1EnvVar, query: { limit: 100 } });
    envVars = [];
    for (const want of declared.envVars ?? []) {
      const got = live.find((v) => v.key === want.key && !v.linked);
      if (!got) continue;
      const blanked = (got.value ?? "") === "" && want.value !== "" && got.secret;
      envVars.push({ key: got.key, value: blanked ? want.value : (got.value ?? ""), scope: (got.scope ?? "ALL") as EnvVarItem["scope"], secret: got.secret });
    }
    envVars = normaliseEnvVars(envVars);
  }
  let secretFiles: SecretFileItem[] | undefined;
  if (declared.secretFiles !== undefined) {
    const live = await ctx.client.list(`${path(id)}/secret-files`, { item: V1SecretFile, query: { limit: 100 } });
    secretFiles = [];
    for (const want of declared.secretFiles ?? []) {
      const got = live.find((f) => f.path === want.path);
      if (!got) continue;
      secretFiles.push({ path: got.path, content: (got.content ?? "") === "" ? want.content : got.content! });
    }
  }
  let connection: ServiceOutputs["connection"] = null;
  if (isDatabase(svc.type)) {
    const c = await findOrUndefined(() => ctx.client.get(`${path(id)}/connection`, { schema: V1Connection }));
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

// ---- mappers ----
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
function toInputs(o: ServiceOutputs): ServiceInputs {
  const keys = (Object.keys(serviceInputs.shape) as (keyof ServiceInputs)[]).filter((k) => k !== "region");
  return compact(Object.fromEntries(keys.map((k) => [k, o[k] ?? undefined]))) as ServiceInputs;
}

function changedKeys(keys: readonly string[], olds: Record<string, unknown>, news: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (news[k] !== undefined && !same(olds[k], news[k])) out[k] = news[k];
  return out;
}

/** A list property, or none while it is not known yet (preview). */
const listOf = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function normaliseEnvVars(vars: EnvVarItem[]): EnvVarItem[] {
  return [...vars].map((v) => ({ key: v.key, value: v.value, scope: v.scope ?? "ALL", secret: v.secret ?? false })).sort((a, b) => cmp(a.key, b.key));
}

/** Values that must never appear in an error: secret variables, secret files, the DB password. */
function secretsOf(i: Partial<ServiceInputs>): string[] {
  return [
    ...(i.envVars ?? []).filter((v) => v.secret).map((v) => v.value),
    ...(i.secretFiles ?? []).map((f) => f.content),
    ...(i.dbPassword ? [i.dbPassword] : []),
  ];
}
