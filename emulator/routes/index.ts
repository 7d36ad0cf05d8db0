// The URL table: every route the emulator serves, by feature.
import type { AnyRouteDef } from "../http";
import { identityRoutes } from "./identity";
import { projectRoutes } from "./projects";
import { serviceRoutes } from "./services";
import { deployRoutes } from "./deploys";
import { cronRoutes } from "./cron";
import { catalogueRoutes } from "./catalogue";
import { dnsRoutes } from "./dns";
import { mailRoutes } from "./mail";
import { workspaceRoutes } from "./workspaces";
import { billingRoutes } from "./billing";
import { metricsRoutes } from "./metrics";
import { gitRoutes } from "./git";

export const allRoutes: AnyRouteDef[] = [...identityRoutes, ...projectRoutes, ...serviceRoutes, ...deployRoutes, ...cronRoutes, ...catalogueRoutes, ...dnsRoutes, ...mailRoutes, ...workspaceRoutes, ...billingRoutes, ...metricsRoutes, ...gitRoutes];
