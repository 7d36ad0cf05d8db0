// One POSTGRES service's database when the machine has no PostgreSQL server: PGlite (WASM) in its
// own worker thread, so a slow statement holds up only this database. It serves the wire protocol
// on a loopback port (the service's listener hands connections to it) and answers the emulator's
// requests (console, catalogue, dumps) posted to it.
import { mkdirSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import type { PGlite } from "@electric-sql/pglite";
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { LOOPBACK } from "./loopback";
import { quoteIdent } from "./postgres-sql";

interface Request { id: number; op: "query" | "textRows" | "script" | "archive" | "ping" | "close"; text?: string; params?: unknown[] }
const { dataDir, user, initOnly } = workerData as { dataDir: string; user: string; initOnly?: boolean };

async function main(): Promise<void> {
  // Loaded here only: the thread is plain Node even under jest, whose sandbox refuses PGlite's own dynamic import().
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // PGlite's own shared_buffers default costs each database some 400 MB more; the real server's figure instead.
  const db: PGlite = await PGlite.create(dataDir, { postgresqlconf: "shared_buffers = 16MB" });
  if (initOnly) {
    // Making a new data directory leaves some 450 MB in the thread that did it: that thread ends here.
    await db.close();
    parentPort!.postMessage({ ready: true, port: 0 });
    return;
  }
  // PGlite has one session, shared by every connection: it runs as the service's user from here on.
  if (user !== "postgres") {
    const exists = await db.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [user]);
    if (!exists.rows.length) await db.exec(`CREATE ROLE ${quoteIdent(user)} LOGIN; GRANT ALL ON SCHEMA public TO ${quoteIdent(user)};`);
    await db.exec(`SET ROLE ${quoteIdent(user)}`);
  }
  const oids = await db.query<{ oid: number }>("SELECT oid::int AS oid FROM pg_type");
  const text = Object.fromEntries(oids.rows.map((r) => [r.oid, (x: string) => x]));
  const server: PGLiteSocketServer = new PGLiteSocketServer({ db, host: LOOPBACK, port: 0, maxConnections: 32 });
  await server.start();

  const handle = async (req: Request): Promise<unknown> => {
    switch (req.op) {
      case "query":
        return (await db.query(req.text!, req.params)).rows;
      case "textRows":
        return (await db.query(req.text!, req.params, { rowMode: "array", parsers: text })).rows;
      case "script": {
        const notices: string[] = [];
        const results = await db.exec(req.text!, { rowMode: "array", parsers: text, onNotice: (n) => notices.push(n.message ?? String(n)) });
        return {
          notices,
          results: results.map((r) => {
            const rows = r.rows as unknown as unknown[][];
            const command = (r as { command?: string }).command ?? null;
            return { command, rowCount: r.fields.length ? rows.length : (r.affectedRows ?? 0), fields: r.fields.map((f) => f.name), rows: rows.map((row) => row.map((v) => (v === null ? null : String(v)))) };
          }),
        };
      }
      case "archive":
        return new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer());
      case "ping":
        return true;
      case "close":
        await server.stop().catch(() => undefined);
        await db.close();
        return true;
    }
  };
  parentPort!.on("message", (req: Request) => {
    handle(req).then(
      (result) => parentPort!.postMessage({ id: req.id, ok: true, result }),
      (e: Error & { code?: string }) => parentPort!.postMessage({ id: req.id, ok: false, error: { message: e.message, code: e.code } }),
    ).finally(() => {
      if (req.op === "close") process.exit(0);
    });
  });
  parentPort!.postMessage({ ready: true, port: Number(server.getServerConn().split(":").pop()) });
}

main().catch((e: Error) => parentPort!.postMessage({ failed: e.message }));
