// Dashboard views across a workspace: the workspace list with what each holds (the navigation's
// counts), and a workspace's overview (its newest deploys and emails).
import type { Workspace } from "../auth";
import type { Emu } from "../emu";
import { customDomainsIn } from "../models/custom-domains";
import { deploysOf, deployStatus } from "../models/deploys";
import { recordsOf, zonesOf } from "../models/dns";
import { records } from "../models/emails";
import { domainsOf } from "../models/mail";
import { environmentsOf, findEnvironment, listProjects } from "../models/projects";
import { serviceStatus } from "../models/services";
import { objectsOf } from "../models/objects";
import { bucketsOf } from "../models/storage";
import { allWorkspaces } from "../models/workspaces";
import { serviceRef, servicesOf, workspaceOf } from "./lookup";
import { outboxRow, sentBy } from "./network";

function counts(emu: Emu, ws: Workspace) {
  const projects = listProjects(emu, ws);
  const svcs = servicesOf(emu, ws.id);
  const zones = zonesOf(emu, ws.id);
  const buckets = bucketsOf(emu, ws.id);
  return {
    projects: projects.length,
    environments: projects.reduce((n, p) => n + environmentsOf(emu, p.id).length, 0),
    services: svcs.length,
    cronJobs: svcs.filter((s) => s.type === "CRON").length,
    zones: zones.length,
    records: zones.reduce((n, z) => n + recordsOf(emu, z.id).length, 0),
    mailDomains: domainsOf(emu, ws).length,
    emails: records(emu).where((r) => r.workspaceId === ws.id).length,
    buckets: buckets.length,
    objects: buckets.reduce((n, b) => n + objectsOf(emu, b.id).length, 0),
    customDomains: customDomainsIn(emu, ws.id).length,
    sites: svcs.filter((s) => s.type === "STATIC").length,
  };
}

/** Every workspace with its counts, and the emulator's settings and clock. */
export function summary(emu: Emu) {
  return {
    emulator: {
      baseUrl: emu.settings.baseUrl ?? null,
      speed: emu.settings.speed,
      now: emu.now(),
      lastRequest: emu.requests.last,
    },
    workspaces: allWorkspaces(emu).map((ws) => ({ id: ws.id, name: ws.name, defaultRegion: ws.defaultRegion, counts: counts(emu, ws) })),
  };
}

/** A workspace's front page: counts, services by status, the newest deploys and emails. */
export function workspacePage(emu: Emu, id: string) {
  const ws = workspaceOf(emu, id);
  const svcs = servicesOf(emu, ws.id);
  const byStatus: Record<string, number> = {};
  for (const s of svcs) {
    const status = serviceStatus(emu, s);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  const recentDeploys = svcs
    .flatMap((s) => deploysOf(emu, s.id).slice(0, 10).map((d) => ({ d, s })))
    .sort((a, b) => b.d.createdAtMs - a.d.createdAtMs || b.d.seq - a.d.seq)
    .slice(0, 10)
    .map(({ d, s }) => ({
      id: d.id, seq: d.seq, status: deployStatus(emu, d), trigger: d.trigger, createdAt: new Date(d.createdAtMs).toISOString(),
      service: { ...serviceRef(s), environment: findEnvironment(emu, s.environmentId)?.name ?? null },
    }));
  const recentEmails = sentBy(emu, ws.id).slice(0, 8).map((r) => outboxRow(emu, r));
  return {
    workspace: { id: ws.id, name: ws.name, defaultRegion: ws.defaultRegion, createdAt: ws.createdAt },
    counts: counts(emu, ws),
    servicesByStatus: byStatus,
    recentDeploys,
    recentEmails,
  };
}
