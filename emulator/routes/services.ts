// Service routes (infrastructure routes §4.3): services, env vars, secret files, connection,
// suspend and resume, build detection.
import { z } from "zod";
import type { Ctx } from "../http";
import { created, noContent, ok, page, parse, type RouteDef } from "../http";
import { badRequest } from "../errors";
import { getEnvironment } from "../models/projects";
import { listen } from "../postgres";
import { detectApps, detectBuild } from "../models/build-detect";
import { deleteService } from "../models/cascades";
import { createServiceBody, patchEnvVarsBody, patchServiceBody, putSecretFileBody } from "../models/service-bodies";
import { deleteEnvVar, deleteSecretFile, envVarView, patchEnvVars, putSecretFile, secretFileView } from "../models/service-env";
import { connectionView, relink } from "../models/service-links";
import { acceptedServiceView, listServices, serviceView } from "../models/service-views";
import { envVarsByService, servicesByEnvironment } from "../models/lifecycle";
import { pageOf } from "../pages";
import {
  createService, envVarsOf, getService, patchService, secretFilesOf, services, setSuspended,
} from "../models/services";

const detectQuery = z.object({
  gitUrl: z.string().optional(),
  repoFullName: z.string().optional(),
  installationId: z.string().optional(),
  branch: z.string().optional(),
  rootDir: z.string().optional(),
});

const svcOf = ({ principal, params, emu }: Ctx) => getService(emu, principal, params.serviceId);
const envVarChange = (ctx: Ctx, serviceId: string, wsId: string, r: { needsRedeploy: boolean; warnings: string[] }) => ({
  envVars: envVarsOf(ctx.emu, serviceId).map((v) => envVarView(v, ctx.principal.readOnlyIn(wsId))),
  needsRedeploy: r.needsRedeploy,
  warnings: r.warnings,
});
const fileChange = (ctx: Ctx, serviceId: string, wsId: string, needsRedeploy: boolean) => ({
  secretFiles: secretFilesOf(ctx.emu, serviceId).map((f) => secretFileView(f, ctx.principal.readOnlyIn(wsId))),
  needsRedeploy,
});

/** A POSTGRES service's real listener: its address goes into the connection and the linked URLs. */
async function openListener(emu: Ctx["emu"], serviceId: string): Promise<void> {
  const svc = services(emu).get(serviceId);
  if (svc?.type !== "POSTGRES") return;
  await listen(emu, svc);
  relink(emu, services(emu).get(serviceId)!);
}

export const serviceRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/build-detection", scope: "Rp",
    handler: ({ query }) => {
      const q = parse(detectQuery, query, "query");
      const { workspaceName: _w, monorepoStrategy: _m, ...build } = detectBuild(q);
      return ok({ ...build, monorepoStrategy: null, workspaceName: null });
    },
  },
  {
    method: "GET", url: "/v1/build-detection/apps", scope: "Rp",
    handler: ({ query }) => ok(detectApps(parse(detectQuery, query, "query"))),
  },
  {
    method: "GET", url: "/v1/services", scope: "Rp",
    handler: ({ principal, query, emu }) => ok(page(listServices(emu, principal, query), query)),
  },
  {
    method: "GET", url: "/v1/environments/:environmentId/services", scope: "Rp",
    handler: ({ principal, params, query, emu }) => {
      const { env } = getEnvironment(emu, principal, params.environmentId);
      return ok(pageOf(servicesByEnvironment(emu), env.id, query, (s) => serviceView(emu, s)));
    },
  },
  {
    method: "POST", url: "/v1/environments/:environmentId/services", scope: "Wp", idempotent: true,
    handler: async ({ principal, params, body, emu }) => {
      const { env, project } = getEnvironment(emu, principal, params.environmentId);
      const svc = createService(emu, env, project, parse(createServiceBody, body));
      await openListener(emu, svc.id);
      return created(acceptedServiceView(emu, getService(emu, principal, svc.id)));
    },
  },
  { method: "GET", url: "/v1/services/:serviceId", scope: "Rp", handler: (ctx) => ok(serviceView(ctx.emu, svcOf(ctx))) },
  {
    method: "PATCH", url: "/v1/services/:serviceId", scope: "Wp",
    handler: (ctx) => ok(serviceView(ctx.emu, patchService(ctx.emu, svcOf(ctx), parse(patchServiceBody, ctx.body ?? {})))),
  },
  {
    method: "DELETE", url: "/v1/services/:serviceId", scope: "Wp",
    handler: (ctx) => {
      const svc = svcOf(ctx);
      ctx.principal.requireAdmin(svc.workspaceId);
      deleteService(ctx.emu, svc);
      return noContent();
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/connection", scope: "Rp",
    handler: async (ctx) => {
      await openListener(ctx.emu, svcOf(ctx).id);
      const svc = svcOf(ctx);
      return ok(connectionView(ctx.emu, svc, ctx.principal.readOnlyIn(svc.workspaceId)));
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/env-vars", scope: "Rp",
    handler: (ctx) => {
      const svc = svcOf(ctx);
      const blank = ctx.principal.readOnlyIn(svc.workspaceId);
      return ok(pageOf(envVarsByService(ctx.emu), svc.id, ctx.query, (v) => envVarView(v, blank)));
    },
  },
  {
    method: "PATCH", url: "/v1/services/:serviceId/env-vars", scope: "Wp",
    handler: (ctx) => {
      const svc = svcOf(ctx);
      const { env } = getEnvironment(ctx.emu, ctx.principal, svc.environmentId);
      const r = patchEnvVars(ctx.emu, svc, parse(patchEnvVarsBody, ctx.body), env);
      return ok(envVarChange(ctx, svc.id, svc.workspaceId, r));
    },
  },
  {
    method: "DELETE", url: "/v1/services/:serviceId/env-vars/:key", scope: "Wp",
    handler: (ctx) => {
      const svc = svcOf(ctx);
      const r = deleteEnvVar(ctx.emu, svc, ctx.params.key);
      return ok(envVarChange(ctx, svc.id, svc.workspaceId, r));
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/secret-files", scope: "Rp",
    handler: (ctx) => {
      const svc = svcOf(ctx);
      const blank = ctx.principal.readOnlyIn(svc.workspaceId);
      return ok(page(secretFilesOf(ctx.emu, svc.id).map((f) => secretFileView(f, blank)), ctx.query));
    },
  },
  {
    method: "PUT", url: "/v1/services/:serviceId/secret-files", scope: "Wp",
    handler: (ctx) => {
      const svc = svcOf(ctx);
      const r = putSecretFile(ctx.emu, svc, parse(putSecretFileBody, ctx.body));
      return ok(fileChange(ctx, svc.id, svc.workspaceId, r.needsRedeploy));
    },
  },
  {
    method: "DELETE", url: "/v1/services/:serviceId/secret-files", scope: "Wp",
    handler: (ctx) => {
      const svc = svcOf(ctx);
      const path = ctx.query.path;
      if (typeof path !== "string" || path === "") throw badRequest("path: is required (query parameter naming the file)");
      const r = deleteSecretFile(ctx.emu, svc, path);
      return ok(fileChange(ctx, svc.id, svc.workspaceId, r.needsRedeploy));
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/suspend", scope: "Wp",
    handler: (ctx) => ok(serviceView(ctx.emu, setSuspended(ctx.emu, svcOf(ctx), true))),
  },
  {
    method: "POST", url: "/v1/services/:serviceId/resume", scope: "Wp",
    handler: (ctx) => ok(serviceView(ctx.emu, setSuspended(ctx.emu, svcOf(ctx), false))),
  },
];
