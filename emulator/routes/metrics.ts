// Service metrics and resource usage per service and per project (infrastructure routes §4.10).
import { ok, type RouteDef } from "../http";
import { metricSeries, parseRange, projectUsage, serviceUsage } from "../models/metrics";
import { getProject } from "../models/projects";
import { getService } from "../models/services";

export const metricsRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/services/:serviceId/metrics", scope: "Rp",
    handler: ({ principal, params, query, emu }) => {
      const range = parseRange(query.range);
      return ok(metricSeries(emu, getService(emu, principal, params.serviceId), range));
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/usage", scope: "Rp",
    handler: ({ principal, params, emu }) => ok(serviceUsage(emu, getService(emu, principal, params.serviceId))),
  },
  {
    method: "GET", url: "/v1/projects/:projectId/usage", scope: "Rp",
    handler: ({ principal, params, emu }) => ok(projectUsage(emu, getProject(emu, principal, params.projectId))),
  },
];
