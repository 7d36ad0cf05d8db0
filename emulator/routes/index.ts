// The REST route table (/v1), by feature; routes/surfaces.ts lists it with every other surface.
import type { AnyRouteDef } from "../http";
import { identityRoutes } from "./identity";
import { projectRoutes } from "./projects";
import { serviceRoutes } from "./services";
import { deployRoutes } from "./deploys";
import { cronRoutes } from "./cron";
import { catalogueRoutes } from "./catalogue";
import { dnsRoutes } from "./dns";
import { mailRoutes } from "./mail";
import { storageRoutes } from "./storage";
import { staticSiteRoutes } from "./static-sites";
import { customDomainRoutes } from "./custom-domains";
import { previewRoutes } from "./previews";
import { emailRoutes } from "./emails";
import { databaseRoutes } from "./databases";
import { backupRoutes } from "./backups";
import { workspaceRoutes } from "./workspaces";
import { billingRoutes } from "./billing";
import { metricsRoutes } from "./metrics";
import { gitRoutes } from "./git";

export const allRoutes: AnyRouteDef[] = [
  ...identityRoutes,
  ...projectRoutes,
  ...serviceRoutes,
  ...deployRoutes,
  ...cronRoutes,
  ...catalogueRoutes,
  ...dnsRoutes,
  ...mailRoutes,
  ...storageRoutes,
  ...staticSiteRoutes,
  ...customDomainRoutes,
  ...previewRoutes,
  ...emailRoutes,
  ...databaseRoutes,
  ...backupRoutes,
  ...workspaceRoutes,
  ...billingRoutes,
  ...metricsRoutes,
  ...gitRoutes,
];
