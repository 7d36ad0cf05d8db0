// GET /_exports/:id: the presigned download of a database or table export (models/databases.ts).
// No API key: the signed, expiring URL is the credential.
import type { FastifyInstance } from "fastify";
import type { Emu } from "../../emu";
import { openExport } from "../../models/databases";

export function exportRoutes(app: FastifyInstance, emu: Emu): void {
  app.get("/_exports/:id", async (req, reply) => {
    const file = openExport(emu, (req.params as { id: string }).id, req.query as { expires?: string; signature?: string });
    return reply
      .type(file.contentType)
      .header("content-disposition", `attachment; filename="${file.filename}"`)
      .send(file.content);
  });
}
