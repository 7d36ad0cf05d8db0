// What the console and backups read from a service's database: the catalogue (tables, columns,
// objects), statements run for the console, and SQL dumps generated from the catalogue. A dump
// covers schemas, sequences, tables (columns, defaults, identity, constraints), indexes, views and
// the data as INSERTs; functions, types, triggers and grants are left out. Every function takes an
// Sql session, so the same code serves the real server and the PGlite fallback.
import type { Sql } from "./postgres-engine";

export const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;
const SYSTEM = "('pg_catalog', 'information_schema', 'pg_toast')";
const USER_NS = `n.nspname NOT IN ${SYSTEM} AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast%'`;

export interface TableRef { schema: string; name: string }
const qname = (t: TableRef) => `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;
/** What Postgres' quote_ident prints: quotes only when needed. */
const pgQuoteIdent = (s: string) => (/^[a-z_][a-z0-9_$]*$/.test(s) ? s : quoteIdent(s));
export const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

export async function listTables(db: Sql) {
  const r = await db.query<{ schema: string; name: string; est: number }>(
    `SELECT n.nspname AS schema, c.relname AS name, c.reltuples::float8 AS est FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND ${USER_NS} ORDER BY 1, 2`);
  // reltuples is -1 until the table was first vacuumed or analyzed: the planner has no estimate.
  return r.map((t) => ({ name: t.name, schema: t.schema, estimatedRows: t.est < 0 ? null : Math.round(t.est) }));
}

export async function listObjects(db: Sql) {
  const r = await db.query<{ schema: string; name: string; kind: string }>(
    `SELECT n.nspname AS schema, c.relname AS name, CASE WHEN c.relkind IN ('v', 'm') THEN 'view' ELSE 'table' END AS kind
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'm') AND ${USER_NS} ORDER BY 1, 2`);
  return r.map((o) => ({ name: o.name, schema: o.schema, kind: o.kind }));
}

async function tableOid(db: Sql, t: TableRef): Promise<number | undefined> {
  const r = await db.query<{ oid: number }>(
    `SELECT c.oid::int AS oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm')`, [t.schema, t.name]);
  return r[0]?.oid;
}

interface ColumnRow { name: string; type: string; notnull: boolean; def: string | null; identity: string; generated: string; num: number }
async function columnsOf(db: Sql, oid: number): Promise<ColumnRow[]> {
  const r = await db.query<ColumnRow>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
            pg_get_expr(d.adbin, d.adrelid) AS def, a.attidentity AS identity, a.attgenerated AS generated, a.attnum::int AS num
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, [oid]);
  return r;
}

/** V1TableSchema, or undefined when there is no such table or view. */
export async function tableSchema(db: Sql, t: TableRef) {
  const oid = await tableOid(db, t);
  if (oid === undefined) return undefined;
  const cols = await columnsOf(db, oid);
  const pk = await db.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(num, ord) ON true
     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num WHERE i.indrelid = $1 AND i.indisprimary ORDER BY k.ord`, [oid]);
  const fks = await db.query<{ col: string; schema: string; tbl: string; ref: string }>(
    `SELECT a.attname AS col, rn.nspname AS schema, rc.relname AS tbl, ra.attname AS ref
     FROM pg_constraint c JOIN LATERAL unnest(c.conkey, c.confkey) AS k(src, dst) ON true
     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.src
     JOIN pg_class rc ON rc.oid = c.confrelid JOIN pg_namespace rn ON rn.oid = rc.relnamespace
     JOIN pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = k.dst
     WHERE c.conrelid = $1 AND c.contype = 'f'`, [oid]);
  const primaryKey = pk.map((r) => r.name);
  return {
    name: t.name,
    schema: t.schema,
    columns: cols.map((c) => {
      const fk = fks.find((f) => f.col === c.name);
      return {
        name: c.name, type: c.type, nullable: !c.notnull, default: c.def, isPrimaryKey: primaryKey.includes(c.name),
        references: fk ? { schema: fk.schema, table: fk.tbl, column: fk.ref } : null,
      };
    }),
    primaryKey,
  };
}

/** Runs a console statement (several, separated by ';', return the last result). */
export async function runStatement(db: Sql, statement: string, maxRows: number) {
  const started = performance.now();
  const { results, notices } = await db.script(statement);
  const executionMs = Math.round((performance.now() - started) * 100) / 100;
  const last = [...results].reverse().find((r) => r.fields.length > 0) ?? results[results.length - 1];
  const rows = last && last.fields.length ? last.rows : null;
  const count = rows ? rows.length : (last?.rowCount ?? 0);
  return {
    columns: last ? last.fields : [],
    rows: rows ? rows.slice(0, maxRows) : null,
    rowCount: count,
    truncated: rows ? rows.length > maxRows : false,
    message: commandTag(last?.command ?? null, count),
    notices,
    executionMs,
  };
}

/**
 * A statement as logs may show it: every literal (strings, dollar-quoted bodies, numbers) becomes
 * `?`, comments go, whitespace is collapsed; identifiers, keywords and `$n` parameters stay.
 */
export function redactStatement(sql: string): string {
  const token = /--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|[Ee]'(?:[^'\\]|''|\\[\s\S])*(?:'|$)|[BbXxNn]?'(?:[^']|'')*(?:'|$)|[Uu]&'(?:[^']|'')*(?:'|$)|(\$[A-Za-z_][A-Za-z0-9_]*\$|\$\$)[\s\S]*?(?:\1|$)|"(?:[^"]|"")*(?:"|$)|\$\d+|[A-Za-z_][A-Za-z0-9_$]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|\s+|[\s\S]/g;
  let out = "";
  for (const m of sql.matchAll(token)) {
    const t = m[0];
    if (t.startsWith("--") || t.startsWith("/*")) out += " ";
    else if (/^\s/.test(t)) out += " ";
    else if (/^[EeBbXxNn]?'|^[Uu]&'|^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.test(t) || /^(?:\d|\.\d)/.test(t)) out += "?";
    else out += t;
  }
  return out.replace(/\s+/g, " ").trim();
}

/** The command tag psql prints: counted commands carry their count (INSERT also its legacy 0). */
function commandTag(command: string | null, count: number): string | null {
  if (!command) return null;
  if (command === "INSERT") return `INSERT 0 ${count}`;
  return ["SELECT", "UPDATE", "DELETE", "MERGE", "COPY", "FETCH", "MOVE"].includes(command) ? `${command} ${count}` : command;
}

async function rowsOf(db: Sql, t: TableRef, cols: ColumnRow[]): Promise<(string | null)[][]> {
  const list = cols.map((c) => quoteIdent(c.name)).join(", ");
  const pk = await db.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
     WHERE i.indrelid = $1::regclass AND i.indisprimary`, [qname(t)]);
  // In primary key order, so dumps and exports of the same data are the same.
  const order = pk.length ? ` ORDER BY ${pk.map((r) => quoteIdent(r.name)).join(", ")}` : "";
  return db.textRows(`SELECT ${list} FROM ${qname(t)}${order}`);
}

export async function tableCsv(db: Sql, t: TableRef, oid: number): Promise<string> {
  const cols = await columnsOf(db, oid);
  const cell = (v: string | null) => (v === null ? "" : /[",\r\n]/.test(v) || v === "" ? `"${v.replace(/"/g, '""')}"` : v);
  const lines = [cols.map((c) => cell(c.name)).join(","), ...(await rowsOf(db, t, cols)).map((r) => r.map(cell).join(","))];
  return lines.join("\r\n") + "\r\n";
}

export async function tableJson(db: Sql, t: TableRef): Promise<string> {
  const r = await db.query<{ j: unknown }>(`SELECT coalesce(json_agg(x), '[]'::json) AS j FROM ${qname(t)} x`);
  return JSON.stringify(typeof r[0].j === "string" ? JSON.parse(r[0].j) : r[0].j, null, 2) + "\n";
}

export { tableOid };

/** A plain SQL dump of the user schemas, or of one table; replayable with restoreSql. */
export async function dumpSql(db: Sql, only?: TableRef): Promise<string> {
  const out: string[] = ["-- Dump generated by the cloudplatform emulator", ""];
  const tables = (await listTables(db)).filter((t) => !only || (t.schema === only.schema && t.name === only.name));
  if (!only) {
    const schemas = await db.query<{ n: string }>(`SELECT n.nspname AS n FROM pg_namespace n WHERE ${USER_NS} AND n.nspname <> 'public' ORDER BY 1`);
    for (const s of schemas) out.push(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(s.n)};`);
  }
  // Free-standing and serial sequences; identity sequences come with their column.
  const seqs = (await db.query<{ schema: string; name: string; type: string; inc: string; min: string; max: string; start: string; cycle: boolean; owner: string | null }>(
    `SELECT n.nspname AS schema, c.relname AS name, format_type(s.seqtypid, NULL) AS type, s.seqincrement::text AS inc, s.seqmin::text AS min,
            s.seqmax::text AS max, s.seqstart::text AS start, s.seqcycle AS cycle,
            (SELECT quote_ident(tn.nspname) || '.' || quote_ident(tc.relname) || '.' || quote_ident(a.attname) FROM pg_depend d
             JOIN pg_class tc ON tc.oid = d.refobjid JOIN pg_namespace tn ON tn.oid = tc.relnamespace
             JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
             WHERE d.objid = c.oid AND d.deptype = 'a' AND d.classid = 'pg_class'::regclass LIMIT 1) AS owner
     FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE ${USER_NS} AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'i') ORDER BY 1, 2`))
    .filter((q) => !only || !!q.owner?.startsWith(`${pgQuoteIdent(only.schema)}.${pgQuoteIdent(only.name)}.`));
  for (const q of seqs) {
    out.push(`CREATE SEQUENCE ${qname(q)} AS ${q.type} INCREMENT BY ${q.inc} MINVALUE ${q.min} MAXVALUE ${q.max} START WITH ${q.start}${q.cycle ? " CYCLE" : ""};`);
  }
  const after: string[] = [];
  for (const t of tables) {
    const oid = (await tableOid(db, t))!;
    const cols = await columnsOf(db, oid);
    const defs = cols.map((c) => {
      let d = `  ${quoteIdent(c.name)} ${c.type}`;
      if (c.generated === "s") d += ` GENERATED ALWAYS AS (${c.def}) STORED`;
      else if (c.identity) d += ` GENERATED ${c.identity === "a" ? "ALWAYS" : "BY DEFAULT"} AS IDENTITY`;
      else if (c.def !== null) d += ` DEFAULT ${c.def}`;
      if (c.notnull) d += " NOT NULL";
      return d;
    });
    const cons = await db.query<{ name: string; def: string; type: string }>(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def, contype AS type FROM pg_constraint WHERE conrelid = $1 ORDER BY contype DESC, conname`, [oid]);
    for (const c of cons.filter((c) => c.type === "p" || c.type === "u" || c.type === "c")) defs.push(`  CONSTRAINT ${quoteIdent(c.name)} ${c.def}`);
    out.push("", `CREATE TABLE ${qname(t)} (\n${defs.join(",\n")}\n);`);
    for (const c of cons.filter((c) => c.type === "f")) after.push(`ALTER TABLE ${qname(t)} ADD CONSTRAINT ${quoteIdent(c.name)} ${c.def};`);
    const idx = await db.query<{ def: string }>(
      `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i WHERE i.indrelid = $1
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid) ORDER BY 1`, [oid]);
    for (const i of idx) after.push(`${i.def};`);
    const insertable = cols.filter((c) => c.generated !== "s");
    const overriding = cols.some((c) => c.identity === "a") ? " OVERRIDING SYSTEM VALUE" : "";
    const names = insertable.map((c) => quoteIdent(c.name)).join(", ");
    for (const row of await rowsOf(db, t, insertable)) {
      out.push(`INSERT INTO ${qname(t)} (${names})${overriding} VALUES (${row.map((v) => (v === null ? "NULL" : quoteLiteral(v))).join(", ")});`);
    }
    for (const c of cols.filter((c) => c.identity)) {
      const seq = await db.query<{ s: string }>(`SELECT pg_get_serial_sequence($1, $2) AS s`, [qname(t), c.name]);
      if (seq[0]?.s) after.push(await setvalOf(db, seq[0].s, `pg_get_serial_sequence(${quoteLiteral(qname(t))}, ${quoteLiteral(c.name)})`));
    }
  }
  for (const q of seqs) {
    if (q.owner) after.push(`ALTER SEQUENCE ${qname(q)} OWNED BY ${q.owner};`);
    after.push(await setvalOf(db, qname(q), quoteLiteral(qname(q))));
  }
  if (!only) {
    const views = await db.query<{ schema: string; name: string; def: string }>(
      `SELECT n.nspname AS schema, c.relname AS name, pg_get_viewdef(c.oid) AS def FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'v' AND ${USER_NS} ORDER BY c.oid`);
    for (const v of views) after.push(`CREATE VIEW ${qname(v)} AS\n${v.def.trim().replace(/;$/, "")};`);
  }
  return [...out, "", ...after, ""].join("\n");
}

async function setvalOf(db: Sql, seq: string, target: string): Promise<string> {
  const r = await db.query<{ last: string; called: boolean }>(`SELECT last_value::text AS last, is_called AS called FROM ${seq}`);
  return `SELECT setval(${target}, ${r[0].last}, ${r[0].called});`;
}

/**
 * Replaces every user object with the dump's, in one transaction: a failure leaves the data as it
 * was. In an admin session, what the dump creates belongs to the session's `owner` role. A lock
 * another session holds for more than `lockTimeoutMs` fails the restore rather than hanging it.
 */
export async function restoreSql(db: Sql, dump: string, lockTimeoutMs = 5_000): Promise<void> {
  const drop = `DO $restore$
DECLARE r record;
BEGIN
  FOR r IN SELECT n.nspname AS s FROM pg_namespace n WHERE ${USER_NS} AND n.nspname <> 'public' LOOP
    EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', r.s);
  END LOOP;
  FOR r IN SELECT n.nspname AS s, c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
           AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'i') LOOP
    EXECUTE format('DROP %s IF EXISTS %I.%I CASCADE',
      CASE r.kind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, r.s, r.name);
  END LOOP;
END
$restore$;`;
  const as = db.owner ? `SET LOCAL ROLE ${quoteIdent(db.owner)};\n` : "";
  try {
    await db.script(`BEGIN;\nSET LOCAL lock_timeout = ${Math.round(lockTimeoutMs)};\n${drop}\n${as}${dump}\nCOMMIT;`);
  } catch (e) {
    // The session may be a shared one (PGlite): leave no transaction open in it.
    await db.script("ROLLBACK").catch(() => undefined);
    throw e;
  }
}
