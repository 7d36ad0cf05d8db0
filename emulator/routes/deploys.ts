// Deploy routes (infrastructure routes §4.4); area DEPLOYS.
import { accepted, ok, page, type RouteDef } from "../http";
import { acceptedDeployView, cancelDeploy, deployLogs, deploysOf, deployView, getDeploy, queueDeploy, rollbackTo } from "../models/deploys";
import { getService, requireNotSuspended } from "../models/services";

export const deployRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/services/:serviceId/deploys", scope: "Rd",
    handler: ({ principal, params, query, emu }) => {
      const svc = getService(emu, principal, params.serviceId);
      return ok(page(deploysOf(emu, svc.id).map((d) => deployView(emu, d)), query));
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/deploys", scope: "Wd", idempotent: true,
    handler: ({ principal, params, emu }) => {
      const svc = getService(emu, principal, params.serviceId);
      requireNotSuspended(svc);
      return accepted(acceptedDeployView(emu, queueDeploy(emu, svc, "MANUAL")));
    },
  },
  {
    method: "GET", url: "/v1/deploys/:deployId", scope: "Rd",
    handler: ({ principal, params, emu }) => ok(deployView(emu, getDeploy(emu, principal, params.deployId).deploy)),
  },
  {
    method: "POST", url: "/v1/deploys/:deployId/cancel", scope: "Wd",
    handler: ({ principal, params, emu }) => ok(deployView(emu, cancelDeploy(emu, getDeploy(emu, principal, params.deployId).deploy))),
  },
  {
    method: "POST", url: "/v1/deploys/:deployId/rollback", scope: "Wd", idempotent: true,
    handler: ({ principal, params, emu }) => {
      const { deploy, svc } = getDeploy(emu, principal, params.deployId);
      return accepted(acceptedDeployView(emu, rollbackTo(emu, deploy, svc)));
    },
  },
  {
    method: "GET", url: "/v1/deploys/:deployId/logs", scope: "Rd",
    handler: ({ principal, params, query, emu }) => {
      const { deploy, svc } = getDeploy(emu, principal, params.deployId);
      return ok(page(deployLogs(emu, deploy, svc), query));
    },
  },
];
