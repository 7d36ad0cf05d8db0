// Service: its inputs and outputs, the keys each kind of change touches (and the outputs an update
// therefore keeps), and the check rules that relate one input to another. service.ts holds the
// handlers.
import { z } from "zod";
import { DATABASE_TYPES } from "../api/services";
import { type CheckFailure, isUnknown, type Rule, same } from "./framework";
import { cronProblem, duration, id, name, regionKey } from "./rules";

export const SERVICE_TYPES = ["WEB", "STATIC", "CRON", "POSTGRES", "MYSQL", "MARIADB", "MONGODB", "REDIS", "VALKEY"] as const;
export const ENV_SCOPES = ["ALL", "PROD", "UAT", "DEV"] as const;
const DB_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const ENV_KEY_RULE = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;
/** Env var keys that name a credential (`*_KEY`, `*_TOKEN`, `*_SECRET`, `PASSWORD`, `*_PASSWORD`): their values should be marked secret. */
export const SECRET_KEY_RULE = /(^|_)(KEY|TOKEN|SECRET|PASSWORD)$/i;
export const looksSecret = (key: string) => SECRET_KEY_RULE.test(key);
/** Each key that appears more than once, once, in order of its second appearance. */
export function duplicateKeys(keys: Iterable<string>): string[] {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const k of keys) (seen.has(k) ? dups : seen).add(k);
  return [...dups];
}
const str = (what: string) => z.string({ error: "must be a string" }).describe(what);

export const envVarItem = z.object({
  key: z.string({ error: "must be a string" }).regex(ENV_KEY_RULE, "must start with a letter or '_' and hold only letters, digits and '_'").describe("Variable name: letters, digits and '_', starting with a letter or '_'; at most 255 characters."),
  value: str("Value. Secret in state when `secret` is true, or when the program gives it as a secret; otherwise plain, so its changes and drift show.").max(32_768, "must be at most 32768 characters"),
  scope: z.enum(ENV_SCOPES, { error: "must be one of ALL, PROD, UAT, DEV" }).optional().describe("Environment tier the variable applies in: ALL (every environment, the default), or only environments of tier PROD, UAT or DEV."),
  secret: z.boolean({ error: "must be a boolean" }).optional().describe("Hide the value from read-only members, and keep it secret in state; default false."),
});
export type EnvVarItem = z.infer<typeof envVarItem>;
export const secretFileItem = z.object({
  path: z.string({ error: "must be a string" }).min(1, "must not be empty")
    .regex(/^[A-Za-z0-9_.\/-]{1,255}$/, "must be 1 to 255 characters: letters, digits, '_', '.', '/' or '-'")
    .refine((p) => !p.split("/").includes(".."), "must not contain '..'")
    .describe("Path the file is mounted at, e.g. /etc/secrets/app.json: 1 to 255 characters, letters, digits, '_', '.', '/' or '-', without '..'."),
  content: str("File content, at most 512 KiB. Always secret.").max(512 * 1024, "must be at most 512 KiB"),
});
export type SecretFileItem = z.infer<typeof secretFileItem>;

export const serviceInputs = z.object({
  environmentId: id("Environment the service runs in. Changing it replaces the service."),
  name: name("Service name, unique within the environment. Changing it renames in place."),
  type: z.enum(SERVICE_TYPES, { error: `must be one of ${SERVICE_TYPES.join(", ")}` }).describe("WEB (a web app), STATIC (a static site built from source), CRON (a scheduled job) or a database engine: POSTGRES, MYSQL, MARIADB, MONGODB, REDIS or VALKEY. Changing it replaces the service."),
  region: regionKey.describe("Region key; defaults to the project's region. Changing it replaces the service.").optional(),
  tier: z.enum(["FREE", "STARTER", "STANDARD", "PRO"], { error: "must be one of FREE, STARTER, STANDARD, PRO" }).optional().describe("Instance size, each with the CPU, memory and monthly price getPricing lists; FREE uses the workspace's single free slot. Changing it replaces the service."),
  sourceType: z.enum(["REPO_APP", "PUBLIC_GIT", "CONTAINER_IMAGE"], { error: "must be one of REPO_APP, PUBLIC_GIT, CONTAINER_IMAGE" }).optional().describe("Where the code comes from: CONTAINER_IMAGE (image), PUBLIC_GIT (gitUrl) or REPO_APP (repoFullName, through the repository app). Inferred from whichever of those is given when omitted."),
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
  subdomain: z.string({ error: "must be a string" }).regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "must be a DNS label: lowercase letters, digits and '-'").optional().describe("Platform subdomain: a DNS label of 1 to 63 lowercase letters, digits and '-', neither starting nor ending with '-'. Changing it replaces the service."),
  schedule: str("CRON only: five-field cron expression (minute hour day-of-month month day-of-week), in UTC, e.g. '0 3 * * *' for 03:00 daily. Fields take numbers, month and weekday names (JAN, MON), '*', '?', ranges (1-5), steps (0-59/15) and lists; @ macros are refused. Updates in place.").optional(),
  command: str("CRON only: command each run executes. Updates in place.").max(4096, "must be at most 4096 characters").optional(),
  envVars: z.array(envVarItem).max(500, "must have at most 500 entries").optional().describe("Variables this service declares; they reach the first deploy. Only these keys are managed: linked and other keys are left alone."),
  secretFiles: z.array(secretFileItem).max(50, "must have at most 50 entries").optional().describe("Secret files this service declares; they reach the first deploy."),
  dbName: str("Databases: database name: letters, digits and '_', starting with a letter or '_'; at most 63 characters. Changing it replaces the service.").regex(DB_IDENTIFIER, "must be a database identifier (letters, digits, '_'; at most 63)").optional(),
  dbUser: str("Databases: user name: letters, digits and '_', starting with a letter or '_'; at most 63 characters. Changing it replaces the service.").regex(DB_IDENTIFIER, "must be a user identifier (letters, digits, '_'; at most 63)").optional(),
  dbPassword: str("Databases: password; generated when omitted. Always secret. Changing it replaces the service.")
    .min(12, "must be at least 12 characters").max(128, "must be at most 128 characters").optional(),
  connectionEnvName: z.string({ error: "must be a string" }).regex(ENV_KEY_RULE, "must be an env var key").optional().describe("Databases: variable the connection URL is linked in as (an env var key); default DATABASE_URL. Changing it replaces the service."),
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
  scheme: z.string().describe("postgresql, mysql, mariadb, mongodb or redis."),
  host: z.string().describe("Host name, reachable from the environment's other services."),
  port: z.number().describe("TCP port."),
  database: z.string().nullable().describe("Database name."),
  username: z.string().nullable().describe("Database user."),
  password: z.string().nullable().describe("The user's password; empty for a read-only key."),
  url: z.string().nullable().describe("The internal connection URL, password included."),
  externalUrl: z.string().nullable().describe("Public URL when external access is on; null otherwise."),
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

export const BUILD_KEYS = ["buildCommand", "startCommand", "runtimeVersion", "rootDir", "healthCheckPath", "port", "monorepoStrategy", "staticOutputDir", "staticSpa", "watchPaths"] as const;
export const SOURCE_KEYS = ["sourceType", "repoFullName", "installationId", "gitUrl", "branch", "image", "imageCommand"] as const;
export const DB_KEYS = ["dbName", "dbUser", "dbPassword", "connectionEnvName", "injectConnectionUrl"] as const;
export const DIFF = {
  update: ["name", ...BUILD_KEYS, ...SOURCE_KEYS, "envVars", "secretFiles", "schedule", "command", "suspended", "cronSuspended", "previewsEnabled", "waitForDeploy", "redeployOnChange", "timeout"],
  replace: ["environmentId", "type", "region", "tier", "subdomain", ...DB_KEYS],
  // Unset means "whatever the platform chose or detected": no drift, no change.
  defaulted: ["region", "tier", "sourceType", "branch", "port", "buildCommand", "startCommand", "runtimeVersion", "staticOutputDir", "staticSpa", "monorepoStrategy", "watchPaths", "rootDir", "healthCheckPath", "imageCommand", "installationId", "subdomain", "command", "suspended", "cronSuspended", "previewsEnabled", "waitForDeploy", "redeployOnChange", "timeout", ...DB_KEYS],
};
export const isDatabase = (t: string | undefined) => !!t && DATABASE_TYPES.includes(t);

// ---- what an update leaves alone ----
/** The outputs an update from `olds` to `news` cannot change (Service.update). */
export function stableOutputs(olds: ServiceOutputs, news: ServiceInputs): string[] {
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
export const rules: Rule<ServiceInputs>[] = [
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
  (i) => duplicateKeys((i.envVars ?? []).map((v) => v.key)).flatMap((k) => fail("envVars", `key ${k} is declared twice`)),
  (i) => {
    const paths = new Set<string>();
    return (i.secretFiles ?? []).flatMap((f) => (paths.has(f.path) ? fail("secretFiles", `path ${f.path} is declared twice`) : (paths.add(f.path), [])));
  },
];
