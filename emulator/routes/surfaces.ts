// Every HTTP surface the emulator serves, registered here in this order, top to bottom. The
// conventions they share (request ids, rate limit, faults, the error body) are hooks in app.ts;
// what each surface requires before its routes run (Host, other sites, JSON, the control token)
// is the gate's table, SURFACES in guard.ts, which refuses to start with a route on no surface.
import type { FastifyInstance } from "fastify";
import { controlRoutes } from "../control";
import { dashboardRoutes } from "../dashboard/routes";
import type { Emu } from "../emu";
import { registerGraphql } from "../graphql";
import type { AnyRouteDef } from "../http";
import { s3Routes } from "../s3/routes";
import { featureControlRoutes } from "./control";
import { allRoutes } from "./index";
import { exportRoutes } from "./public/exports";
import { siteRoutes } from "./public/sites";
import { uploadRoutes } from "./public/uploads";

/** `api` registers one route of the REST table with the shared auth, scope and idempotency rules. */
export function registerSurfaces(app: FastifyInstance, emu: Emu, api: (def: AnyRouteDef) => void): void {
  // The REST API, /v1/... (routes/index.ts: one file per feature).
  for (const def of allRoutes) api(def);
  // GraphQL, /graphql (graphql/).
  registerGraphql(app, emu);
  // The S3 endpoint for bucket objects (s3/routes.ts).
  s3Routes(app, emu);
  // The control API, /_emulator/... (tests only): the core (control.ts), then the features' own.
  controlRoutes(app, emu);
  featureControlRoutes(app, emu);
  // URLs that are their own credential: presigned uploads and exports, and the sites served.
  uploadRoutes(app, emu);
  exportRoutes(app, emu);
  siteRoutes(app, emu);
  // The dashboard, /_emulator/dashboard (dashboard/).
  dashboardRoutes(app, emu);
}
