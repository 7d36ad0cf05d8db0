// Database console routes (infrastructure routes §4.6): reads Rp, writes Wp.
import type { Ctx } from "../http";
import { matchesSearch, ok, page, parse, type RouteDef } from "../http";
import { getService } from "../models/services";
import { databaseExportBody, exportDatabase, exportTable, findTable, queryBody, runQuery, tableExportBody } from "../models/databases";
import { realDatabase } from "../postgres";
import { listObjects, listTables, tableSchema } from "../postgres-sql";

const svcOf = ({ principal, params, emu }: Ctx) => getService(emu, principal, params.serviceId);
const dbOf = async (ctx: Ctx) => realDatabase(ctx.emu, svcOf(ctx));

export const databaseRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/services/:serviceId/database/tables", scope: "Rp",
    handler: async (ctx) => {
      const tables = (await listTables(await dbOf(ctx))).filter((t) => matchesSearch(ctx.query, t.name));
      return ok(page(tables, ctx.query));
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/database/tables/:table/columns", scope: "Rp",
    handler: async (ctx) => {
      const db = await dbOf(ctx);
      const t = { schema: typeof ctx.query.schema === "string" && ctx.query.schema ? ctx.query.schema : "public", name: ctx.params.table };
      await findTable(db, t);
      return ok(await tableSchema(db, t));
    },
  },
  {
    method: "GET", url: "/v1/services/:serviceId/database/objects", scope: "Rp",
    handler: async (ctx) => {
      const objects = (await listObjects(await dbOf(ctx))).filter((o) => matchesSearch(ctx.query, o.name));
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
