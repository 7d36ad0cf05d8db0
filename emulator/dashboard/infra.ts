// Dashboard views of projects, environments, services, deploys and cron runs, built from the
// models' own views. Secret values never leave: env vars go through the blanking view, secret files
// show their paths only, and a database's connection is shown without its password.
import type { Emu } from "../emu";
import { notFound } from "../errors";
import { customDomainsOf } from "../models/custom-domains";
import { deployLogs, deploysOf, deployView } from "../models/deploys";
import { deploys } from "../models/lifecycle";
import { findRun, materialise, runLogs, runsOf, runView } from "../models/cron";
import {
  type Environment, environmentKind, environmentsOf, environmentView, findEnvironment, findProject, listProjects, type Project, projectView,
} from "../models/projects";
import { envVarView } from "../models/service-env";
import { connectionView } from "../models/service-links";
import { serviceView } from "../models/service-views";
import { envVarsOf, isDatabase, secretFilesOf, type Service, services, servicesIn } from "../models/services";
import { siteView } from "../models/static-sites";
import { serviceRef, workspaceOf } from "./lookup";

/** How many deploys and runs a service page lists, newest first. */
const HISTORY = 50;

const projectRef = (p: Project) => ({ id: p.id, name: p.name });
const environmentRef = (e: Environment) => ({ id: e.id, name: e.name, kind: environmentKind(e.name) });

/** One row of a services table: status, health, address and the newest deploy. */
export function serviceRow(emu: Emu, s: Service) {
  const v = serviceView(emu, s);
  const latest = deploysOf(emu, s.id)[0];
  return {
    id: v.id, name: v.name, type: v.type, status: v.status, health: v.health, tier: v.tier, url: v.url, region: v.region?.key ?? null,
    suspension: v.suspension, lastDeployedAt: v.lastDeployedAt,
    latestDeploy: latest ? { id: latest.id, seq: latest.seq, status: deployView(emu, latest).status, createdAt: new Date(latest.createdAtMs).toISOString() } : null,
    site: s.type === "STATIC" ? siteView(emu, s).path : null,
  };
}

function environmentTree(emu: Emu, e: Environment) {
  return { ...environmentView(e), kind: environmentKind(e.name), services: servicesIn(emu, e.id).map((s) => serviceRow(emu, s)) };
}

function projectTree(emu: Emu, p: Project) {
  return { ...projectView(p), region: p.defaultRegion, environments: environmentsOf(emu, p.id).map((e) => environmentTree(emu, e)) };
}

/** Every project of a workspace (newest first, as the API lists them) with its environments and services. */
export function projectsOfWorkspace(emu: Emu, workspaceId: string) {
  const ws = workspaceOf(emu, workspaceId);
  return { workspaceId: ws.id, projects: listProjects(emu, ws).map((p) => projectTree(emu, p)) };
}

export function projectPage(emu: Emu, id: string) {
  const p = findProject(emu, id);
  if (!p) throw notFound("Project", id);
  return projectTree(emu, p);
}

export function environmentPage(emu: Emu, id: string) {
  const e = findEnvironment(emu, id);
  const p = e && findProject(emu, e.projectId);
  if (!e || !p) throw notFound("Environment", id);
  return { ...environmentTree(emu, e), workspaceId: p.workspaceId, project: projectRef(p) };
}

/** Where a service sits, for breadcrumbs. */
export function placement(emu: Emu, s: Service) {
  const project = findProject(emu, s.projectId);
  const env = findEnvironment(emu, s.environmentId);
  return { project: project ? projectRef(project) : null, environment: env ? environmentRef(env) : null };
}

export function servicePage(emu: Emu, id: string) {
  const s = services(emu).get(id);
  if (!s) throw notFound("Service", id);
  if (s.cron) materialise(emu, s);
  return {
    workspaceId: s.workspaceId,
    service: serviceView(emu, s),
    ...placement(emu, s),
    envVars: envVarsOf(emu, s.id).map((r) => envVarView(r, true)),
    secretFiles: secretFilesOf(emu, s.id).map((f) => f.path),
    deploys: deploysOf(emu, s.id).slice(0, HISTORY).map((d) => ({ ...deployView(emu, d), seq: d.seq })),
    cronRuns: s.cron ? runsOf(emu, s.id).slice(0, HISTORY).map((r) => runView(emu, r)) : null,
    customDomains: customDomainsOf(emu, s.id).map((d) => ({ id: d.id, domain: d.domain, status: d.status, verifiedAt: d.verifiedAt })),
    connection: isDatabase(s.type) ? connectionOrNull(emu, s) : null,
    site: s.type === "STATIC" ? siteView(emu, s) : null,
  };
}

function connectionOrNull(emu: Emu, s: Service) {
  try {
    const c = connectionView(emu, s, true);
    return { scheme: c.scheme, host: c.host, port: c.port, database: c.database, username: c.username };
  } catch {
    return null; // still provisioning
  }
}

export function deployPage(emu: Emu, id: string) {
  const d = deploys(emu).get(id);
  const s = d && services(emu).get(d.serviceId);
  if (!d || !s) throw notFound("Deploy", id);
  let logs: ReturnType<typeof deployLogs> = [];
  let logsNote: string | null = null;
  try {
    logs = deployLogs(emu, d, s);
  } catch (err) {
    logsNote = (err as Error).message;
  }
  return { workspaceId: s.workspaceId, service: serviceRef(s), ...placement(emu, s), deploy: { ...deployView(emu, d), seq: d.seq }, logs, logsNote };
}

export function cronRunPage(emu: Emu, id: string) {
  const r = findRun(emu, id);
  const s = r && services(emu).get(r.serviceId);
  if (!r || !s) throw notFound("Cron run", id);
  return { workspaceId: s.workspaceId, service: serviceRef(s), ...placement(emu, s), run: { ...runView(emu, r), command: r.command }, logs: runLogs(emu, r) };
}
