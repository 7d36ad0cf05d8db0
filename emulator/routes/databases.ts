// Database console routes (infrastructure routes §4.6): reads Rp, writes Wp.
import type { Ctx } from "../http";
import { matchesSearch, ok, page, parse, type RouteDef } from "../http";
import { getService } from "../models/services";
import { databaseExportBody, exportDatabase, exportTable, findTable, queryBody, runQuery, tableExportBody } from "../models/databases";
import { withDatabase } from "../postgres";
import type { Sql } from "../postgres-engine";
import { listObjects, listTables, tableSchema } from "../postgres-sql";

const svcOf = ({ principal, params, emu }: Ctx) => getService(emu, principal, params.serviceId);
const onDb = <T>(ctx: Ctx, fn: (db: Sql) => Promise<T>) => withDatabase(ctx.emu, svcOf(ctx), fn);

export const databaseRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/services/:serviceId/database/tables", scope: "Rp",
    handler: async (ctx) => {
      const tables = (await onDb(ctx, listTables)).filter((t) => matchesSearch(ctx.query, t.name));
      return ok(page(tables, ctx.query));
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/database/tables/:table/columns", scope: "Rp",
    handler: async (ctx) => {
      const t = { schema: typeof ctx.query.schema === "string" && ctx.query.schema ? ctx.query.schema : "public", name: ctx.params.table };
      return ok(await onDb(ctx, async (db) => {
        await findTable(db, t);
        return tableSchema(db, t);
      }));
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/database/objects", scope: "Rp",
    handler: async (ctx) => {
      const objects = (await onDb(ctx, listObjects)).filter((o) => matchesSearch(ctx.query, o.name));
      return ok(page(objects, ctx.query));
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/database/query", scope: "Wp",
    handler: async (ctx) => ok(await runQuery(ctx.emu, svcOf(ctx), parse(queryBody, ctx.body))),
  },
  {
    method: "POST", url: "/v1/services/:serviceId/database/exports", scope: "Wp",
    handler: async (ctx) => {
      const body = parse(databaseExportBody, ctx.body ?? {});
      return ok(await exportDatabase(ctx.emu, svcOf(ctx), body.format ?? "SQL"));
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/database/tables/:table/exports", scope: "Wp",
    handler: async (ctx) => ok(await exportTable(ctx.emu, svcOf(ctx), ctx.params.table, parse(tableExportBody, ctx.body ?? {}))),
  },
];
