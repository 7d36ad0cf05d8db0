// Views of services: the list, one service, and a new service as its create answers.
import type { Principal } from "../auth";
import type { Emu } from "../emu";
import { regionRef, tierPrice } from "./catalogue";
import { deploysOf, deployStatus, isDatabase, liveAtMs, type Service, services, serviceStatus, serviceUrl } from "./lifecycle";
import type { Project } from "./projects";

export function listServices(emu: Emu, who: Principal, query: Record<string, unknown>) {
  const projects = emu.store.table<Project>("projects");
  const q = typeof query.search === "string" ? query.search.toLowerCase() : "";
  return services(emu)
    .where((s) => who.canSee(s.workspaceId))
    .map((s) => ({ s, projectName: projects.get(s.projectId)?.name ?? "" }))
    .filter(({ s, projectName }) => !q || s.name.toLowerCase().includes(q) || projectName.toLowerCase().includes(q))
    .sort((a, b) => a.projectName.localeCompare(b.projectName) || a.s.projectId.localeCompare(b.s.projectId) || a.s.name.localeCompare(b.s.name))
    .map(({ s, projectName }) => ({ id: s.id, name: s.name, projectName, type: s.type }));
}

function health(emu: Emu, svc: Service): string {
  if (svc.suspension !== "NONE") return "STOPPED";
  const all = deploysOf(emu, svc.id);
  if (all.some((d) => deployStatus(emu, d) === "RUNNING")) return "HEALTHY";
  const latest = all[0];
  if (latest && deployStatus(emu, latest) === "FAILED" && latest.fail?.code === "CRASH") return "CRASH_LOOPING";
  if (latest && deployStatus(emu, latest) === "FAILED") return "MISSING";
  return "UNKNOWN";
}

/** A new service as its create answers: PROVISIONING, not placed (no url), its first deploy queued. */
export function acceptedServiceView(emu: Emu, svc: Service) {
  return { ...serviceView(emu, svc), status: "PROVISIONING", url: null, health: svc.suspension !== "NONE" ? "STOPPED" : "UNKNOWN", lastDeployedAt: null };
}

export function serviceView(emu: Emu, svc: Service) {
  const size = tierPrice(svc.tier);
  const live = deploysOf(emu, svc.id).map(liveAtMs).filter((t): t is number => t !== null && t <= emu.clock.now());
  return {
    id: svc.id,
    environmentId: svc.environmentId,
    name: svc.name,
    type: svc.type,
    status: serviceStatus(emu, svc),
    tier: svc.tier,
    url: serviceUrl(emu, svc),
    region: regionRef(svc.region),
    runtime: svc.runtime,
    framework: svc.framework,
    isStatic: svc.type === "STATIC",
    port: svc.port,
    healthCheckPath: svc.healthCheckPath,
    memoryMb: size.memoryMb,
    cpuMillicores: size.cpuMillicores,
    storageLimitMb: isDatabase(svc.type) ? size.storageMb : null,
    source: svc.source,
    build: svc.build,
    cron: svc.cron,
    suspension: svc.suspension,
    health: health(emu, svc),
    previewsEnabled: svc.previewsEnabled ?? false,
    lastDeployedAt: live.length ? new Date(Math.max(...live)).toISOString() : null,
    createdAt: svc.createdAt,
    updatedAt: svc.updatedAt,
  };
}

