// A service's env vars and secret files, read and synced in one place: Service (its declared
// lists), EnvVar (one key) and cloudplatform-adopt (what an import leaves out, and the values the
// secrets step writes to config) all go through here.
import type { CloudPlatformClient } from "../client";
import { envVarApi, secretFileApi } from "../api/endpoints/services";
import type { V1EnvVar, V1SecretFile } from "../api/services";
import { type Context, deleteIgnoringNotFound, findShared, same } from "./framework";
import type { EnvVarItem, SecretFileItem } from "./serviceSchema";

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The variables the service holds itself, by key: connection strings linked in from a database are left out. */
export async function ownEnvVars(client: CloudPlatformClient, serviceId: string): Promise<V1EnvVar[]> {
  return (await envVarApi.list(client, serviceId)).filter((v) => !v.linked).sort((a, b) => cmp(a.key, b.key));
}

/** The service's secret files, by path. */
export async function secretFilesOf(client: CloudPlatformClient, serviceId: string): Promise<V1SecretFile[]> {
  return (await secretFileApi.list(client, serviceId)).sort((a, b) => cmp(a.path, b.path));
}

/** One variable by key (linked ones included), in a walk reads share; undefined when the service or the key is gone. */
export function findEnvVar(ctx: Context, serviceId: string, key: string, opts: { fresh?: boolean } = {}): Promise<V1EnvVar | undefined> {
  return findShared(ctx, `env-vars\n${serviceId}`, () => envVarApi.list(ctx.client, serviceId), (v) => v.key === key, opts);
}

/** The Service inputs that hold secrets the API shows: secret variables of its own, and secret files. */
export function secretInputsOf(vars: V1EnvVar[], files: V1SecretFile[]): ("envVars" | "secretFiles")[] {
  return [...(vars.some((v) => v.secret && !v.linked) ? ["envVars" as const] : []), ...(files.length ? ["secretFiles" as const] : [])];
}

/** A variable as a Service input: scope and secrecy filled in. */
export const envVarItemOf = (v: V1EnvVar): EnvVarItem => ({ key: v.key, value: v.value ?? "", scope: (v.scope ?? "ALL") as EnvVarItem["scope"], secret: v.secret });

/** Declared order does not matter: sorted by key, defaults filled, so diffs stay quiet. */
export function normaliseEnvVars(vars: EnvVarItem[]): EnvVarItem[] {
  return [...vars].map((v) => ({ key: v.key, value: v.value, scope: v.scope ?? "ALL", secret: v.secret ?? false })).sort((a, b) => cmp(a.key, b.key));
}

export const sortFiles = (files: SecretFileItem[]) => [...files].sort((a, b) => cmp(a.path, b.path));

/**
 * Brings the service's variables from `olds` to `news` (both normalised): upserts what changed
 * among the declared keys, deletes keys no longer declared. True when a deploy is needed to apply it.
 */
export async function syncEnvVars(ctx: Context, serviceId: string, olds: EnvVarItem[], news: EnvVarItem[], log: (warning: string) => void): Promise<boolean> {
  let needsRedeploy = false;
  const before = new Map(olds.map((v) => [v.key, v]));
  const upserts = news.filter((v) => !same(before.get(v.key), v));
  if (upserts.length) {
    const r = await envVarApi.upsert(ctx.client, serviceId, upserts);
    needsRedeploy ||= r.needsRedeploy;
    for (const w of r.warnings) log(w);
  }
  for (const key of before.keys()) {
    if (news.some((v) => v.key === key)) continue;
    await deleteIgnoringNotFound(async () => {
      needsRedeploy ||= (await envVarApi.delete(ctx.client, serviceId, key))?.needsRedeploy ?? true;
    });
  }
  return needsRedeploy;
}

/** Brings the service's secret files from `olds` to `news`: PUT what changed, DELETE what is no longer declared. */
export async function syncSecretFiles(ctx: Context, serviceId: string, olds: SecretFileItem[], news: SecretFileItem[]): Promise<boolean> {
  let needsRedeploy = false;
  const before = new Map(olds.map((f) => [f.path, f]));
  for (const f of news) {
    if (same(before.get(f.path), f)) continue;
    needsRedeploy ||= (await secretFileApi.put(ctx.client, serviceId, { path: f.path, content: f.content })).needsRedeploy;
  }
  for (const path of before.keys()) {
    if (news.some((f) => f.path === path)) continue;
    await deleteIgnoringNotFound(async () => {
      await secretFileApi.delete(ctx.client, serviceId, path);
      needsRedeploy = true;
    });
  }
  return needsRedeploy;
}
