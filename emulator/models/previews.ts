// Pull-request previews (infrastructure routes §2.6, §3, §4.9). A preview is opened by the control
// route, as a pull request would open it: a preview environment (isPreview) with a copy of the web
// service on the PR's branch. Its status follows that copy's first deploy on the emulator clock.
// Closing tears the environment down and keeps the record, CLOSED.
import { z } from "zod";
import type { Principal } from "../auth";
import type { Emu } from "../emu";
import { conflict, notFound } from "../errors";
import { newId } from "../store";
import { deploysOf, deployStatus } from "./deploys";
import type { Environment, Project } from "./projects";
import type { CreateServiceBody } from "./service-bodies";
import { createService, type Service, serviceUrl, services, speedMs } from "./services";

export interface Preview {
  id: string;
  workspaceId: string;
  projectId: string;
  sourceServiceId: string;
  repoFullName: string;
  prNumber: number;
  headRef: string;
  baseRef: string | null;
  headSha: string | null;
  authorLogin: string | null;
  title: string | null;
  environmentId: string | null;
  previewWebServiceId: string | null;
  createdAtMs: number;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const ENV_ONLY_MS = 5_000;
const previews = (emu: Emu) => emu.store.table<Preview>("previews");

export const previewsEnabledBody = z.strictObject({ enabled: z.boolean({ error: "must be a boolean" }) });
export const openBody = z.strictObject({
  serviceId: z.string().min(1, "must be a service id"),
  prNumber: z.number().int("must be an integer").min(1, "must be a positive integer"),
  headRef: z.string().min(1, "must be a branch name"),
  title: z.string().optional(),
  baseRef: z.string().optional(),
  authorLogin: z.string().optional(),
  repoFullName: z.string().optional(),
});

// ---- read ----
export function getPreview(emu: Emu, who: Principal, id: string): Preview {
  const p = previews(emu).get(id);
  if (!p || !who.canSee(p.workspaceId)) throw notFound("Preview", id);
  return p;
}

/** Newest first. */
export const previewsOf = (emu: Emu, serviceId: string) =>
  previews(emu).where((p) => p.sourceServiceId === serviceId).sort((a, b) => b.createdAtMs - a.createdAtMs || b.prNumber - a.prNumber);

// ---- enable, open, close ----
/** Turning previews on or off; turning them off closes the open ones (cascades.ts). */
export function setPreviewsFlag(emu: Emu, svc: Service, enabled: boolean): void {
  services(emu).update(svc.id, { previewsEnabled: enabled, updatedAt: emu.now() });
}

export function openPreview(emu: Emu, input: z.infer<typeof openBody>): Preview {
  const svc = services(emu).get(input.serviceId);
  if (!svc) throw notFound("Service", input.serviceId);
  if (!svc.previewsEnabled) throw conflict(`Previews are not enabled on service ${svc.id}; PUT /v1/services/${svc.id}/previews-enabled {"enabled": true} first`);
  const open = previewsOf(emu, svc.id).find((p) => p.prNumber === input.prNumber && !p.closedAt);
  if (open) throw conflict(`Pull request #${input.prNumber} already has an open preview (${open.id})`);
  const project = emu.store.table<Project>("projects").get(svc.projectId)!;
  const now = emu.now();
  const env: Environment = emu.store.table<Environment>("environments").insert({
    id: newId(), projectId: project.id, name: `pr-${input.prNumber}`, isPreview: true, paused: false, pausedAt: null, createdAt: now, updatedAt: now,
  });
  const copy = svc.type === "WEB" && svc.source.type ? createService(emu, env, project, copyBody(svc, input.headRef)) : null;
  return previews(emu).insert({
    id: newId(), workspaceId: svc.workspaceId, projectId: project.id, sourceServiceId: svc.id,
    repoFullName: input.repoFullName ?? svc.source.repoFullName ?? repoOf(svc.source.gitUrl) ?? `${project.name}/${svc.name}`,
    prNumber: input.prNumber, headRef: input.headRef, baseRef: input.baseRef ?? svc.source.branch ?? "main",
    headSha: null, authorLogin: input.authorLogin ?? null, title: input.title ?? null,
    environmentId: env.id, previewWebServiceId: copy?.id ?? null, createdAtMs: emu.clock.now(), closedAt: null, createdAt: now, updatedAt: now,
  });
}

/** The web service on the pull request's branch: same source, build and port. */
function copyBody(svc: Service, headRef: string): CreateServiceBody {
  const s = svc.source;
  const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
  return {
    name: svc.name, type: "WEB", region: svc.region, ...(svc.port ? { port: svc.port } : {}),
    ...defined({ sourceType: s.type ?? undefined, image: s.image, imageCommand: s.imageCommand, gitUrl: s.gitUrl, repoFullName: s.repoFullName, installationId: svc.installationId, rootDir: s.rootDir }),
    ...(s.type === "CONTAINER_IMAGE" ? {} : { branch: headRef }),
    ...defined({ buildCommand: svc.build.buildCommand, startCommand: svc.build.startCommand, healthCheckPath: svc.healthCheckPath }),
  } as CreateServiceBody;
}

const repoOf = (gitUrl: string | null) => (gitUrl ? /github\.com\/([^/]+\/[^/.]+)/.exec(gitUrl)?.[1] ?? null : null);

/** Marks the preview CLOSED (cascades.ts tears its environment down first); the record stays. */
export function markClosed(emu: Emu, p: Preview): Preview {
  const now = emu.now();
  return previews(emu).update(p.id, { closedAt: now, updatedAt: now });
}

/** Forgets a service's preview records (cascades.ts closes them first). */
export function forgetPreviewsOf(emu: Emu, serviceId: string): void {
  for (const p of previewsOf(emu, serviceId)) previews(emu).delete(p.id);
}

// ---- views ----
function state(emu: Emu, p: Preview): { status: string; error: string | null; url: string | null; deployId: string | null } {
  const svc = p.previewWebServiceId ? services(emu).get(p.previewWebServiceId) : undefined;
  const deploy = svc ? deploysOf(emu, svc.id)[0] : undefined;
  if (p.closedAt) return { status: "CLOSED", error: null, url: null, deployId: deploy?.id ?? null };
  if (!svc || !deploy) {
    const ready = emu.clock.now() >= p.createdAtMs + speedMs(emu, ENV_ONLY_MS);
    return { status: ready ? "ACTIVE" : "CREATING", error: null, url: null, deployId: null };
  }
  const s = deployStatus(emu, deploy);
  if (s === "FAILED") return { status: "FAILED", error: deploy.fail?.error ?? "The preview deploy failed", url: null, deployId: deploy.id };
  if (s === "RUNNING" || s === "REPLACED") return { status: "ACTIVE", error: null, url: serviceUrl(emu, svc), deployId: deploy.id };
  return { status: "CREATING", error: null, url: null, deployId: deploy.id };
}

/** A preview as the pull request that opens it sees it: CREATING, whatever the speed. */
export function openedPreviewView(emu: Emu, p: Preview) {
  return { ...previewView(emu, p), status: "CREATING", error: null, url: null };
}

export function previewView(emu: Emu, p: Preview) {
  const s = state(emu, p);
  return {
    id: p.id,
    projectId: p.projectId,
    sourceServiceId: p.sourceServiceId,
    repoFullName: p.repoFullName,
    prNumber: p.prNumber,
    headRef: p.headRef,
    baseRef: p.baseRef,
    headSha: p.headSha,
    authorLogin: p.authorLogin,
    title: p.title,
    status: s.status,
    error: s.error,
    url: s.url,
    environmentId: p.environmentId,
    lastDeploymentId: s.deployId,
    previewWebServiceId: p.previewWebServiceId,
    previewPostgresServiceId: null,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}
