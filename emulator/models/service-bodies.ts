// The request bodies of the service routes (infrastructure routes §4.3): what a create, a patch
// and an env-var or secret-file change may hold, each rule naming its field.
import { z } from "zod";
import { TIERS, type Tier } from "./catalogue";
import { ENV_SCOPES, SERVICE_TYPES, SOURCE_TYPES } from "./lifecycle";
import { nameField } from "./projects";

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

// PATCH and PUT bodies are strict: a field the spec does not define is a 400 naming it, not a
// 200 that changed nothing. Each field the spec lists for them is optional unless it says required.
export const patchServiceBody = z.strictObject({
  name: createServiceBody.shape.name.optional(),
  build: z.strictObject({
    buildCommand: str(), startCommand: str(), runtimeVersion: str(64), rootDir: str(255),
    healthCheckPath: createServiceBody.shape.healthCheckPath.unwrap(),
    port: createServiceBody.shape.port.unwrap(),
    monorepoStrategy: z.enum(["ISOLATED", "WORKSPACE"]),
    staticOutputDir: str(255), staticSpa: z.boolean(), watchPaths: z.array(str(255)).max(50),
  }).partial().optional(),
  source: z.strictObject({
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
export const patchEnvVarsBody = z.strictObject({ envVars: z.array(z.strictObject(envVarInput.shape)).max(500, "must have at most 500 entries") });
export const putSecretFileBody = z.strictObject(secretFileInput.shape);

