// A service's env vars and secret files (infrastructure routes §4.3): upserts by key or path,
// the views that blank secret values for read-only keys, and the redeploy a change calls for.
import { z } from "zod";
import type { Emu } from "../emu";
import { conflict, notFound } from "../errors";
import { deploysOf, envVars, type EnvVarRow, secretFiles, type SecretFileRow, type Service, services } from "./lifecycle";
import { environmentKind, type Environment } from "./projects";
import type { envVarInput, patchEnvVarsBody, secretFileInput } from "./service-bodies";

// ---- env vars ----
export const envRowId = (serviceId: string, key: string) => `${serviceId}:${key}`;

export function envVarView(r: EnvVarRow, blank: boolean) {
  return {
    key: r.key,
    value: blank && (r.secret || r.linkedFrom) ? "" : r.value,
    scope: r.scope,
    secret: r.secret,
    linked: r.linkedFrom !== null,
  };
}

/** Sets one variable; false when it already held that value, scope and secrecy. */
export function upsertEnvRow(emu: Emu, svc: Service, v: z.infer<typeof envVarInput>): boolean {
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
    if (upsertEnvRow(emu, svc, v)) changed = true;
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

// ---- secret files ----
const fileRowId = (serviceId: string, path: string) => `${serviceId}:${path}`;

export const secretFileView = (r: SecretFileRow, blank: boolean) => ({ path: r.path, content: blank ? "" : r.content });

/** Sets one file; false when it already held that content. */
export function putFileRow(emu: Emu, svc: Service, f: z.infer<typeof secretFileInput>): boolean {
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

