// What deleting a thing takes with it, declared here and nowhere else. A delete recurses across
// models (a service's preview has an environment, which has services), and models import no module
// that imports them (test/emulator/layout.test.ts), so the deletes of things that own others live
// here and each model gives the removal of its own rows. Everything holds without an HTTP server:
// a route, a preview closing or a test calling these gets the same cascade. Workspaces have no
// delete in the API; a reset (the last function) is what empties them.
import type { Emu } from "../emu";
import { closeDatabase } from "../postgres";
import { deleteBackupsOf, forgetDumps } from "./backups";
import { deleteCustomDomainsOf } from "./custom-domains";
import { forgetExports } from "./databases";
import { deleteRunsOf } from "./cron";
import { deleteDeploysOf } from "./deploys";
import { recordsOf } from "./dns";
import { type DnsZone, recordRows, zoneRows } from "./dns-records";
import { envVars, envVarsByLink, isDatabase, secretFiles, secretFilesOf, type Service, services, servicesIn, envVarsOf } from "./lifecycle";
import { forgetPreviewsOf, markClosed, type Preview, previewsOf, setPreviewsFlag } from "./previews";
import { type Environment, environments, environmentsOf, type Project, projects } from "./projects";
import { deleteStaticContentOf } from "./static-sites";
import { forgetSessionKeys } from "./workspaces";

/** A project takes its environments. */
export function deleteProject(emu: Emu, p: Project): void {
  for (const env of environmentsOf(emu, p.id)) deleteEnvironment(emu, env);
  projects(emu).delete(p.id);
}

/** An environment takes its services, databases first: their links leave the apps before the apps go. */
export function deleteEnvironment(emu: Emu, env: Environment): void {
  for (const db of servicesIn(emu, env.id).filter((s) => isDatabase(s.type))) deleteService(emu, db);
  for (const svc of servicesIn(emu, env.id)) deleteService(emu, svc);
  environments(emu).delete(env.id);
}

/**
 * A service takes its previews (closed, with their environments), custom domains, env vars (its
 * own and the connection strings it linked into other apps), secret files, deploys, cron runs,
 * static content, backups, and its database.
 */
export function deleteService(emu: Emu, svc: Service): void {
  for (const p of previewsOf(emu, svc.id)) closePreview(emu, p);
  forgetPreviewsOf(emu, svc.id);
  deleteCustomDomainsOf(emu, svc.id);
  for (const v of [...envVarsOf(emu, svc.id), ...envVarsByLink(emu).list(svc.id)]) envVars(emu).delete(v.id);
  for (const f of secretFilesOf(emu, svc.id)) secretFiles(emu).delete(f.id);
  deleteDeploysOf(emu, svc.id);
  deleteRunsOf(emu, svc.id);
  services(emu).delete(svc.id);
  deleteStaticContentOf(emu, svc.id);
  deleteBackupsOf(emu, svc.id);
  void closeDatabase(emu, svc);
}

/** Closing a preview tears its environment down now; the record stays, CLOSED. */
export function closePreview(emu: Emu, p: Preview): Preview {
  if (p.closedAt) return p;
  const env = p.environmentId ? environments(emu).get(p.environmentId) : undefined;
  if (env) deleteEnvironment(emu, env);
  return markClosed(emu, p);
}

/** Turning a service's previews off closes the open ones. */
export function setPreviewsEnabled(emu: Emu, svc: Service, enabled: boolean): void {
  setPreviewsFlag(emu, svc, enabled);
  if (!enabled) for (const p of previewsOf(emu, svc.id)) if (!p.closedAt) closePreview(emu, p);
}

/** A DNS zone takes its records. */
export function deleteZone(emu: Emu, zone: DnsZone): void {
  for (const r of recordsOf(emu, zone.id)) recordRows(emu).delete(r.id);
  zoneRows(emu).delete(zone.id);
}

/** A reset (POST /_emulator/reset) empties the tables; this forgets what users made outside them. */
export function resetCascade(emu: Emu): void {
  forgetExports(emu);
  forgetSessionKeys(emu);
  forgetDumps(emu);
}
