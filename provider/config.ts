// Provider configuration: `cloudplatform:*` stack config first, then CLOUDPLATFORM_* environment
// variables. The key is read where it is used and is never returned, logged or stored.
import { CloudPlatformClient, ConfigurationError, type ClientOptions } from "./client";
import { workspaceApi } from "./api/endpoints/projects";
import type { Context } from "./resources/framework";

export interface ProviderConfig {
  apiKey?: string;
  baseUrl?: string;
  workspaceId?: string;
  /** Allows plain http to a host that is not loopback (the key then crosses the network in clear text). */
  insecure?: boolean;
  /** The explicit Provider resource these settings come from (native plugin); unset for the stack's config. */
  providerName?: string;
}

export const CONFIG_KEYS = {
  apiKey: { key: "cloudplatform:apiKey", env: "CLOUDPLATFORM_API_KEY" },
  baseUrl: { key: "cloudplatform:baseUrl", env: "CLOUDPLATFORM_BASE_URL" },
  workspaceId: { key: "cloudplatform:workspaceId", env: "CLOUDPLATFORM_WORKSPACE_ID" },
  insecure: { key: "cloudplatform:insecure", env: "CLOUDPLATFORM_INSECURE" },
} as const;

/** `true`/`1` and `false`/`0` (any case); anything else is not a setting (configFailures names it). */
export function parseFlag(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (/^(true|1)$/i.test(v.trim())) return true;
  if (/^(false|0)$/i.test(v.trim())) return false;
  return undefined;
}

export function resolveConfig(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  // An empty value counts as unset, so the environment variable still applies.
  const pick = (k: keyof typeof CONFIG_KEYS) => {
    const fromConfig = get(CONFIG_KEYS[k].key);
    const v = fromConfig === undefined || fromConfig === "" ? env[CONFIG_KEYS[k].env] : fromConfig;
    return v === undefined || v === "" ? undefined : v;
  };
  const insecure = parseFlag(pick("insecure"));
  return { apiKey: pick("apiKey"), baseUrl: pick("baseUrl"), workspaceId: pick("workspaceId"), ...(insecure === undefined ? {} : { insecure }) };
}

/** Builds the context handlers run in. The client and the workspace lookup are made once, on first use. */
export function makeContext(config: ProviderConfig, extra: Partial<ClientOptions> = {}, log: (m: string) => void = () => {}): Context {
  let client: CloudPlatformClient | undefined;
  let workspace: Promise<string> | undefined;
  const getClient = () => {
    if (!client) {
      if (config.apiKey === undefined) {
        throw new ConfigurationError(
          "No API key: run `pulumi config set --secret cloudplatform:apiKey <key>` or set CLOUDPLATFORM_API_KEY",
        );
      }
      const c = new CloudPlatformClient({ apiKey: config.apiKey, baseUrl: config.baseUrl ?? "", insecure: config.insecure, ...extra });
      if (c.keyKind === "mail_live_" || c.keyKind === "mail_test_") {
        throw new ConfigurationError(
          "cloudplatform:apiKey is a mail key, which reaches only the email API; use a workspace key (svc_live_) or a platform token (svc_pat_)",
        );
      }
      client = c;
    }
    return client;
  };
  return {
    get client() {
      return getClient();
    },
    workspaceId() {
      workspace ??= config.workspaceId
        ? Promise.resolve(config.workspaceId)
        : Promise.resolve().then(() => workspaceApi.list(getClient())).then((all) => {
            if (all.length === 1) return all[0].id;
            if (all.length === 0) throw new ConfigurationError("The API key reaches no workspace; check the key, or set cloudplatform:workspaceId");
            const names = all.map((w) => `${w.name} (${w.id})`).join(", ");
            const set = config.providerName
              ? `Set the workspaceId argument of the Provider '${config.providerName}' (new cloudplatform.Provider("${config.providerName}", { workspaceId: "<id>", ... }))`
              : "Set cloudplatform:workspaceId (or CLOUDPLATFORM_WORKSPACE_ID)";
            throw new ConfigurationError(`The API key reaches ${all.length} workspaces: ${names}. ${set}, or give the resource a workspaceId`);
          });
      workspace.catch(() => (workspace = undefined));
      return workspace;
    },
    log,
  };
}
