// Backups and restores (infrastructure routes §2.5, §3, §4.7) of a POSTGRES service's real database.
// The dump is taken when the backup is requested and kept in memory; the record then moves
// PENDING -> RUNNING -> COMPLETED on the emulator clock. A restore takes a safety backup
// (trigger PRE_RESTORE), then replaces the live data with the backup's at once; its record moves
// on the clock the same way.
import type { Principal } from "../auth";
import type { Emu } from "../emu";
import { CodedError, conflict, notFound } from "../errors";
import { newId } from "../store";
import { realDatabase, requireRealEngine } from "../postgres";
import { dumpSql, restoreSql } from "../postgres-sql";
import { getService, type Service, speedMs } from "./lifecycle";

const DURATION = { pending: 1_000, running: 3_000 };
const RETENTION_DAYS: Record<string, number> = { MANUAL: 30, PRE_RESTORE: 7 };

interface Timed {
  id: string;
  serviceId: string;
  createdAtMs: number;
  pendingMs: number;
  runningMs: number;
  error: string | null;
  errorCode: string | null;
}
export interface BackupRow extends Timed {
  trigger: "HOURLY" | "DAILY" | "WEEKLY" | "MANUAL" | "PRE_RESTORE";
  sizeBytes: number;
  region: string;
}
export interface RestoreRow extends Timed {
  backupId: string;
  safetyBackupId: string | null;
}

export const backups = (emu: Emu) => emu.store.table<BackupRow>("databaseBackups");
export const restores = (emu: Emu) => emu.store.table<RestoreRow>("databaseRestores");

// Dumps stay in memory: after a restart from a state file, restoring an old backup fails with BACKUP_FILE_MISSING.
const dumps = new WeakMap<Emu, Map<string, string>>();
function dumpsOf(emu: Emu): Map<string, string> {
  let m = dumps.get(emu);
  if (!m) {
    dumps.set(emu, (m = new Map()));
    const all = m;
    emu.on("reset", () => all.clear());
    emu.on("service.deleted", (svc: Service) => deleteBackupsOf(emu, svc.id));
  }
  return m;
}

function phase(emu: Emu, r: Timed) {
  const now = emu.clock.now();
  const startedAtMs = r.createdAtMs + r.pendingMs;
  const doneAtMs = startedAtMs + r.runningMs;
  const status = now < startedAtMs ? "PENDING" : now < doneAtMs ? "RUNNING" : r.errorCode ? "FAILED" : "COMPLETED";
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    status,
    createdAt: iso(r.createdAtMs),
    startedAt: status === "PENDING" ? null : iso(startedAtMs),
    completedAt: status === "COMPLETED" || status === "FAILED" ? iso(doneAtMs) : null,
  };
}

export function backupView(emu: Emu, b: BackupRow) {
  const p = phase(emu, b);
  const days = RETENTION_DAYS[b.trigger] ?? 30;
  return {
    id: b.id, serviceId: b.serviceId, status: p.status, trigger: b.trigger,
    sizeBytes: p.status === "COMPLETED" ? b.sizeBytes : null, region: b.region,
    error: p.status === "FAILED" ? b.error : null, errorCode: p.status === "FAILED" ? b.errorCode : null,
    createdAt: p.createdAt, startedAt: p.startedAt, completedAt: p.completedAt,
    expiresAt: new Date(b.createdAtMs + days * 86_400_000).toISOString(),
  };
}

export function restoreView(emu: Emu, r: RestoreRow) {
  const p = phase(emu, r);
  return {
    id: r.id, serviceId: r.serviceId, backupId: r.backupId, safetyBackupId: r.safetyBackupId, status: p.status,
    error: p.status === "FAILED" ? r.error : null, errorCode: p.status === "FAILED" ? r.errorCode : null,
    createdAt: p.createdAt, startedAt: p.startedAt, completedAt: p.completedAt,
  };
}

const timing = (emu: Emu) => ({ createdAtMs: emu.clock.now(), pendingMs: speedMs(emu, DURATION.pending), runningMs: speedMs(emu, DURATION.running) });

/** Newest first; a service whose engine the emulator does not run answers NOT_SUPPORTED. */
export function backupsOf(emu: Emu, svc: Service): BackupRow[] {
  requireRealEngine(svc);
  dumpsOf(emu);
  return backups(emu).where((b) => b.serviceId === svc.id).sort((a, b) => b.createdAtMs - a.createdAtMs || (b.trigger === "PRE_RESTORE" ? -1 : 1));
}

export async function takeBackup(emu: Emu, svc: Service, trigger: BackupRow["trigger"]): Promise<BackupRow> {
  const db = await realDatabase(emu, svc);
  const sql = await dumpSql(db);
  const row = backups(emu).insert({
    id: newId(), serviceId: svc.id, trigger, sizeBytes: Buffer.byteLength(sql), region: svc.region, ...timing(emu), error: null, errorCode: null,
  });
  dumpsOf(emu).set(row.id, sql);
  return row;
}

export function getBackup(emu: Emu, who: Principal, id: string): { backup: BackupRow; svc: Service } {
  const backup = backups(emu).get(id);
  if (!backup) throw notFound("Backup", id);
  return { backup, svc: getService(emu, who, backup.serviceId, "Backup") };
}

export function getRestore(emu: Emu, who: Principal, id: string): RestoreRow {
  const r = restores(emu).get(id);
  if (!r) throw notFound("Restore", id);
  getService(emu, who, r.serviceId, "Restore");
  return r;
}

export async function restoreBackup(emu: Emu, svc: Service, backup: BackupRow): Promise<RestoreRow> {
  await realDatabase(emu, svc);
  const status = backupView(emu, backup).status;
  if (status !== "COMPLETED") throw conflict(`Backup ${backup.id} is ${status}; only a COMPLETED backup can be restored`);
  const busy = restores(emu).find((r) => r.serviceId === svc.id && ["PENDING", "RUNNING"].includes(phase(emu, r).status));
  if (busy) throw new CodedError(409, "ALREADY_RUNNING", `restore ${busy.id} of this service is still running`);
  const base = { id: newId(), serviceId: svc.id, backupId: backup.id, ...timing(emu) };
  const sql = dumpsOf(emu).get(backup.id);
  if (sql === undefined) {
    return restores(emu).insert({ ...base, safetyBackupId: null, error: "The backup's dump is no longer held (the emulator restarted since it was taken)", errorCode: "BACKUP_FILE_MISSING" });
  }
  const safety = await takeBackup(emu, svc, "PRE_RESTORE");
  try {
    await restoreSql(await realDatabase(emu, svc), sql);
  } catch (e) {
    return restores(emu).insert({ ...base, safetyBackupId: safety.id, error: `Replaying the dump failed; the live data was left as it was: ${(e as Error).message}`, errorCode: "RESTORE_FAILED" });
  }
  return restores(emu).insert({ ...base, safetyBackupId: safety.id, error: null, errorCode: null });
}

export function deleteBackupsOf(emu: Emu, serviceId: string): void {
  for (const b of backups(emu).where((x) => x.serviceId === serviceId)) {
    backups(emu).delete(b.id);
    dumps.get(emu)?.delete(b.id);
  }
  for (const r of restores(emu).where((x) => x.serviceId === serviceId)) restores(emu).delete(r.id);
}
