// Backups and restores (infrastructure routes §2.5, §3, §4.7) of a POSTGRES service's real database.
// The dump is taken when the backup is requested and written to <dataDir>/backups/<id>.sql, so it
// survives a restart; the record is answered PENDING (202, whatever --speed says), then moves
// RUNNING -> COMPLETED on the emulator clock. A restore takes a safety backup (trigger
// PRE_RESTORE), then replaces the live data with the backup's at once; its record is answered
// PENDING and moves on the clock the same way.
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { mkdirSync, readdirSync, renameSync } from "node:fs";
import path from "node:path";
import type { Principal } from "../auth";
import type { Emu } from "../emu";
import { CodedError, conflict, notFound, PlatformError } from "../errors";
import { newId } from "../store";
import { dataDir, databaseRunning, existingDataDir, requireRealEngine, withDatabase } from "../postgres";
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

const dumpsDir = (emu: Emu) => path.join(dataDir(emu), "backups");
const dumpFile = (emu: Emu, id: string) => path.join(dumpsDir(emu), `${id}.sql`);

const FORGOTTEN = "backups.forgotten-";

/**
 * A reset forgets every dump (cascades.ts). The folder is renamed away before the reset answers,
 * then removed in the background: a backup taken right after the reset writes into a new folder, never into one
 * being deleted. Folders a crash left half removed go with the next reset.
 */
export function forgetDumps(emu: Emu): void {
  const dir = existingDataDir(emu);
  if (!dir) return;
  try {
    renameSync(path.join(dir, "backups"), path.join(dir, `${FORGOTTEN}${newId()}`));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") emu.log({ kind: "error", msg: `reset could not move the backup dumps away: ${(e as Error).message}` });
  }
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(FORGOTTEN));
  } catch {
    return;
  }
  for (const n of names) void rm(path.join(dir, n), { recursive: true, force: true }).catch(() => undefined);
}

/** Written whole or not at all: a crash mid-write leaves no torn dump under the backup's name. */
async function writeDump(emu: Emu, id: string, sql: string): Promise<void> {
  mkdirSync(dumpsDir(emu), { recursive: true, mode: 0o700 });
  const tmp = `${dumpFile(emu, id)}.tmp`;
  await writeFile(tmp, sql, { mode: 0o600 });
  await rename(tmp, dumpFile(emu, id));
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

/** A record just accepted is PENDING in the 202 that creates it, whatever the clock says. */
const accepted = (p: ReturnType<typeof phase>) => ({ ...p, status: "PENDING", startedAt: null, completedAt: null });

export function backupView(emu: Emu, b: BackupRow, justAccepted = false) {
  const p = justAccepted ? accepted(phase(emu, b)) : phase(emu, b);
  const days = RETENTION_DAYS[b.trigger] ?? 30;
  return {
    id: b.id, serviceId: b.serviceId, status: p.status, trigger: b.trigger,
    sizeBytes: p.status === "COMPLETED" ? b.sizeBytes : null, region: b.region,
    error: p.status === "FAILED" ? b.error : null, errorCode: p.status === "FAILED" ? b.errorCode : null,
    createdAt: p.createdAt, startedAt: p.startedAt, completedAt: p.completedAt,
    expiresAt: new Date(b.createdAtMs + days * 86_400_000).toISOString(),
  };
}

export function restoreView(emu: Emu, r: RestoreRow, justAccepted = false) {
  const p = justAccepted ? accepted(phase(emu, r)) : phase(emu, r);
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
  return backups(emu).where((b) => b.serviceId === svc.id).sort((a, b) => b.createdAtMs - a.createdAtMs || (b.trigger === "PRE_RESTORE" ? -1 : 1));
}

export async function takeBackup(emu: Emu, svc: Service, trigger: BackupRow["trigger"]): Promise<BackupRow> {
  const id = newId();
  const base = { id, serviceId: svc.id, trigger, region: svc.region, ...timing(emu) };
  let sql: string;
  try {
    // One snapshot, as a superuser: the dump is consistent and sees every object of the database.
    sql = await withDatabase(emu, svc, (db) => dumpSql(db), { as: "admin", snapshot: true });
    await writeDump(emu, id, sql);
  } catch (e) {
    if (e instanceof PlatformError) throw e;
    return backups(emu).insert({ ...base, sizeBytes: 0, error: `The dump failed: ${(e as Error).message}`, errorCode: "DUMP_FAILED" });
  }
  return backups(emu).insert({ ...base, sizeBytes: Buffer.byteLength(sql), error: null, errorCode: null });
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
  await databaseRunning(emu, svc);
  const status = backupView(emu, backup).status;
  if (status !== "COMPLETED") throw conflict(`Backup ${backup.id} is ${status}; only a COMPLETED backup can be restored`);
  const busy = restores(emu).find((r) => r.serviceId === svc.id && ["PENDING", "RUNNING"].includes(phase(emu, r).status));
  if (busy) throw new CodedError(409, "ALREADY_RUNNING", `restore ${busy.id} of this service is still running`);
  const base = { id: newId(), serviceId: svc.id, backupId: backup.id, ...timing(emu) };
  const sql = await readFile(dumpFile(emu, backup.id), "utf8").catch(() => undefined);
  if (sql === undefined) {
    return restores(emu).insert({ ...base, safetyBackupId: null, error: `The backup's dump file is missing from ${dumpsDir(emu)}`, errorCode: "BACKUP_FILE_MISSING" });
  }
  const safety = await takeBackup(emu, svc, "PRE_RESTORE");
  if (safety.errorCode) {
    return restores(emu).insert({ ...base, safetyBackupId: safety.id, error: "The safety backup failed; the live data was left as it was", errorCode: "SAFETY_BACKUP_FAILED" });
  }
  try {
    await withDatabase(emu, svc, (db) => restoreSql(db, sql), { as: "admin" });
  } catch (e) {
    if (e instanceof PlatformError) throw e;
    return restores(emu).insert({ ...base, safetyBackupId: safety.id, error: `Replaying the dump failed; the live data was left as it was: ${(e as Error).message}`, errorCode: "RESTORE_FAILED" });
  }
  return restores(emu).insert({ ...base, safetyBackupId: safety.id, error: null, errorCode: null });
}

export function deleteBackupsOf(emu: Emu, serviceId: string): void {
  for (const b of backups(emu).where((x) => x.serviceId === serviceId)) {
    backups(emu).delete(b.id);
    void rm(dumpFile(emu, b.id), { force: true });
  }
  for (const r of restores(emu).where((x) => x.serviceId === serviceId)) restores(emu).delete(r.id);
}
