// The provider's own inputs (an explicit Provider resource, or the stack's cloudplatform:* config).
import type { ConfigureRequest } from "@pulumi/pulumi/proto/provider_pb";
import { redactUrlCredentials } from "../client";
import { CONFIG_KEYS, parseFlag, resolveConfig, type ProviderConfig } from "../config";
import { diffWith, type DiffResult, isUnknown } from "../resources/framework";
import { fromStruct, type Props } from "./values";

/** Any of the three settings changes in place: the provider's resources stay where they are. */
export function configDiff(olds: Record<string, unknown>, news: Record<string, unknown>): DiffResult {
  return diffWith(olds, news, { update: ["apiKey", "baseUrl", "workspaceId", "insecure"] });
}

/** The engine names a stack's default provider `default` or `default_<version>`. */
const DEFAULT_PROVIDER = /^default(_\d+_\d+_\d+\S*)?$/;

/** The provider's three settings, from Configure's args or its variables, then the environment. */
export function configFrom(req: ConfigureRequest, env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  const args = req.hasArgs() ? fromStruct(req.getArgs()) : {};
  const vars = req.getVariablesMap();
  const name = req.getName() || req.getUrn()?.split("::").pop();
  const explicit = name && !DEFAULT_PROVIDER.test(name) ? { providerName: name } : {};
  return { ...explicit, ...resolveConfig((key) => {
    const short = key.split(":")[1];
    const fromArgs = args[short];
    if (typeof fromArgs === "string" && !isUnknown(fromArgs)) return fromArgs;
    if (typeof fromArgs === "boolean") return String(fromArgs);
    const v = vars.get(key) ?? vars.get(`cloudplatform:config:${short}`);
    return v === undefined || isUnknown(v) ? undefined : v;
  }, env) };
}

/** Rules for the provider's own inputs, each naming the setting. */
export function configFailures(news: Props): { property: string; reason: string }[] {
  const out: { property: string; reason: string }[] = [];
  for (const key of Object.keys(CONFIG_KEYS)) {
    const v = news[key];
    if (v === undefined || v === null || isUnknown(v)) continue;
    if (key === "insecure") {
      if (typeof v !== "boolean" && (typeof v !== "string" || parseFlag(v) === undefined)) out.push({ property: key, reason: "insecure: must be true or false" });
    } else if (typeof v !== "string") out.push({ property: key, reason: `${key}: must be a string` });
  }
  const url = news.baseUrl;
  if (typeof url === "string" && url !== "" && !isUnknown(url) && !/^https?:\/\/[^\s]+$/.test(url)) {
    out.push({ property: "baseUrl", reason: `baseUrl: '${redactUrlCredentials(url)}' is not an http(s) URL` });
  }
  return out;
}
