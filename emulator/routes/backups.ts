// Backup and restore routes (infrastructure routes §4.7): area DATABASES; a restore needs role ADMIN.
import { accepted, ok, page, type RouteDef } from "../http";
import { backupsOf, backupView, getBackup, getRestore, restoreBackup, restoreView, takeBackup } from "../models/backups";
import { getService } from "../models/services";

export const backupRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/services/:serviceId/backups", scope: "Rdb",
    handler: ({ principal, params, query, emu }) => {
      const svc = getService(emu, principal, params.serviceId);
      return ok(page(backupsOf(emu, svc).map((b) => backupView(emu, b)), query));
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/backups", scope: "Wdb", idempotent: true,
    handler: async ({ principal, params, emu }) => {
      const svc = getService(emu, principal, params.serviceId);
      return accepted(backupView(emu, await takeBackup(emu, svc, "MANUAL"), true));
    },
  },
  {
    method: "POST", url: "/v1/backups/:backupId/restore", scope: "Wdb", idempotent: true,
    handler: async ({ principal, params, emu }) => {
      const { backup, svc } = getBackup(emu, principal, params.backupId);
      principal.requireAdmin(svc.workspaceId);
      return accepted(restoreView(emu, await restoreBackup(emu, svc, backup), true));
    },
  },
  {
    method: "GET", url: "/v1/restores/:restoreId", scope: "Rdb",
    handler: ({ principal, params, emu }) => ok(restoreView(emu, getRestore(emu, principal, params.restoreId))),
  },
];
