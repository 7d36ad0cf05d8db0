// Cron job routes (infrastructure routes §4.5).
import { accepted, noContent, ok, page, parse, type RouteDef } from "../http";
import {
  acceptedRunView, cronSettingsBody, cronSettingsView, getRun, materialise, patchCron, requireCron, runLogs, runsOf, runView, setCronSuspended,
  startManualRun,
} from "../models/cron";
import { getService } from "../models/services";

export const cronRoutes: RouteDef[] = [
  {
    method: "PATCH", url: "/v1/services/:serviceId/cron", scope: "Wp",
    handler: ({ principal, params, body, emu }) => {
      const svc = getService(emu, principal, params.serviceId);
      requireCron(svc);
      return ok(cronSettingsView(patchCron(emu, svc, parse(cronSettingsBody, body ?? {}))));
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/cron/suspend", scope: "Wp",
    handler: ({ principal, params, emu }) => {
      setCronSuspended(emu, getService(emu, principal, params.serviceId), true);
      return noContent();
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/cron/resume", scope: "Wp",
    handler: ({ principal, params, emu }) => {
      setCronSuspended(emu, getService(emu, principal, params.serviceId), false);
      return noContent();
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/runs", scope: "Rp",
    handler: ({ principal, params, query, emu }) => {
      const svc = getService(emu, principal, params.serviceId);
      requireCron(svc);
      materialise(emu, svc);
      return ok(page(runsOf(emu, svc.id).map((r) => runView(emu, r)), query));
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/runs", scope: "Wp", idempotent: true,
    handler: ({ principal, params, emu }) => accepted(acceptedRunView(emu, startManualRun(emu, getService(emu, principal, params.serviceId)))),
  },
  {
    method: "GET", url: "/v1/cron-runs/:runId", scope: "Rp",
    handler: ({ principal, params, emu }) => ok(runView(emu, getRun(emu, principal, params.runId).run)),
  },
  {
    method: "GET", url: "/v1/cron-runs/:runId/logs", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(runLogs(emu, getRun(emu, principal, params.runId).run), query)),
  },
];
