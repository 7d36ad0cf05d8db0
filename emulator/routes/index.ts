// The URL table: every route the emulator serves, by feature.
import type { RouteDef } from "../http";
import { identityRoutes } from "./identity";
import { projectRoutes } from "./projects";
import { dnsRoutes } from "./dns";
import { mailRoutes } from "./mail";

export const allRoutes: RouteDef[] = [...identityRoutes, ...projectRoutes, ...dnsRoutes, ...mailRoutes];
