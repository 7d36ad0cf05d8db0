// The database console (infrastructure routes §2.5, §4.6): tables, columns, objects, statements
// and exports of a POSTGRES service's real database. Exports are held in memory and served from a
// short-lived presigned URL on the emulator itself: GET {baseUrl}/_exports/{id}?expires=&signature=
// (routes/public/exports.ts).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Emu } from "../emu";
import { badRequest, forbidden, notFound, PlatformError } from "../errors";
import { baseUrlOf } from "../loopback";
import { newId } from "../store";
import { archiveOf, withDatabase } from "../postgres";
import type { Sql } from "../postgres-engine";
import { dumpSql, redactStatement, runStatement, tableCsv, tableJson, tableOid, type TableRef } from "../postgres-sql";
import type { Service } from "./lifecycle";

export const EXPORT_TTL_MS = 15 * 60_000;
export const MAX_ROWS = { default: 1_000, max: 10_000 };

export const queryBody = z.object({
  statement: z.string().min(1, "must not be empty").max(100_000, "must be at most 100000 characters"),
  maxRows: z.number().int("must be an integer").min(1, `must be 1 to ${MAX_ROWS.max}`).max(MAX_ROWS.max, `must be 1 to ${MAX_ROWS.max}`).optional(),
});
export const databaseExportBody = z.object({ format: z.enum(["SQL", "ARCHIVE"]).optional() });
export const tableExportBody = z.object({ format: z.enum(["CSV", "JSON", "SQL"]).optional(), schema: z.string().min(1).max(63).optional() });

// ---- console ----
export async function runQuery(emu: Emu, svc: Service, body: z.infer<typeof queryBody>) {
  const started = performance.now();
  // Logged without its values: literals become `?`.
  const log = (fields: Record<string, unknown>) =>
    emu.log({ kind: "sql", msg: redactStatement(body.statement), serviceId: svc.id, durationMs: Math.round(performance.now() - started), ...fields });
  try {
    const out = await withDatabase(emu, svc, (db) => runStatement(db, body.statement, body.maxRows ?? MAX_ROWS.default));
    log({ command: out.message, rowCount: out.rowCount });
    return { engine: svc.type, ...out };
  } catch (e) {
    if (e instanceof PlatformError) throw e;
    log({ error: (e as { code?: string }).code ?? "ERROR" });
    // The engine's own message, as a console shows it; the statement is the caller's, not echoed.
    throw badRequest(`statement: ${(e as Error).message}`);
  }
}

export async function findTable(db: Sql, t: TableRef): Promise<number> {
  const oid = await tableOid(db, t);
  if (oid === undefined) throw notFound("Table", `${t.schema}.${t.name}`);
  return oid;
}

// ---- exports ----
export interface StoredExport { content: Buffer; filename: string; contentType: string; expiresAtMs: number }
const exportsOf = new WeakMap<Emu, { secret: Buffer; files: Map<string, StoredExport> }>();
function exportStore(emu: Emu) {
  let s = exportsOf.get(emu);
  if (!s) exportsOf.set(emu, (s = { secret: randomBytes(32), files: new Map() }));
  return s;
}
const sign = (secret: Buffer, id: string, expires: number) => createHmac("sha256", secret).update(`${id}.${expires}`).digest("hex");

function publish(emu: Emu, content: Buffer, filename: string, format: string, contentType: string) {
  const store = exportStore(emu);
  const now = emu.clock.now();
  for (const [id, f] of store.files) if (f.expiresAtMs <= now) store.files.delete(id);
  const id = newId();
  const expiresAtMs = now + EXPORT_TTL_MS;
  store.files.set(id, { content, filename, contentType, expiresAtMs });
  return {
    url: `${baseUrlOf(emu)}/_exports/${id}?expires=${expiresAtMs}&signature=${sign(store.secret, id, expiresAtMs)}`,
    filename, format, sizeBytes: content.length, expiresAt: new Date(expiresAtMs).toISOString(),
  };
}

const stamp = (emu: Emu) => emu.now().replace(/[-:]/g, "").replace(/\..*$/, "");

export async function exportDatabase(emu: Emu, svc: Service, format: "SQL" | "ARCHIVE") {
  const base = `${svc.db!.name}-${stamp(emu)}`;
  if (format === "SQL") {
    const dump = await withDatabase(emu, svc, (db) => dumpSql(db), { as: "admin", snapshot: true });
    return publish(emu, Buffer.from(dump, "utf8"), `${base}.sql`, format, "application/sql");
  }
  // The engine's own archive: pg_dump's custom format (pg_restore reads it), or PGlite's data directory.
  const archive = await archiveOf(emu, svc);
  return publish(emu, archive.content, `${base}.${archive.extension}`, format, archive.contentType);
}

export async function exportTable(emu: Emu, svc: Service, name: string, body: z.infer<typeof tableExportBody>) {
  const t = { schema: body.schema ?? "public", name };
  const format = body.format ?? "CSV";
  const content = await withDatabase(emu, svc, async (db) => {
    const oid = await findTable(db, t);
    if (format === "CSV") return tableCsv(db, t, oid);
    if (format === "JSON") return tableJson(db, t);
    return dumpSql(db, t);
  }, { as: "admin", snapshot: true });
  const base = `${t.schema === "public" ? "" : `${t.schema}.`}${t.name}-${stamp(emu)}`;
  const kind = { CSV: ["csv", "text/csv"], JSON: ["json", "application/json"], SQL: ["sql", "application/sql"] }[format];
  return publish(emu, Buffer.from(content, "utf8"), `${base}.${kind[0]}`, format, kind[1]);
}

/** A reset forgets the exports held (cascades.ts). */
export const forgetExports = (emu: Emu) => exportStore(emu).files.clear();

/** The presigned download: no key, the signature is the credential; it expires on the emulator clock. */
export function openExport(emu: Emu, id: string, q: { expires?: string; signature?: string }): StoredExport {
  const store = exportStore(emu);
  const expires = Number(q.expires);
  const want = Buffer.from(sign(store.secret, id, expires));
  const got = Buffer.from(String(q.signature ?? ""));
  if (!Number.isFinite(expires) || got.length !== want.length || !timingSafeEqual(got, want)) throw forbidden("The signature of this download URL is not valid");
  if (expires <= emu.clock.now()) throw forbidden("This download URL has expired; export again");
  const file = store.files.get(id);
  if (!file) throw notFound("Export", id);
  return file;
}
