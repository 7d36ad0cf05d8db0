// PUT /_uploads/:uploadId: the presigned upload of a static site's bytes (models/static-sites.ts).
// No API key: the signed URL and the x-upload-signature header are the credential.
import type { FastifyInstance } from "fastify";
import type { Emu } from "../../emu";
import { PlatformError } from "../../errors";
import { completeUpload, maxBytes } from "../../models/static-sites";

export function uploadRoutes(app: FastifyInstance, emu: Emu): void {
  app.register(async (scope) => {
    // The presigned PUT takes any body as raw bytes, up to the stated maximum.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: maxBytes(emu) }, (_req, body, done) => done(null, body));
    // Too large a body names the limit the reservation stated; the app's handler answers the rest.
    scope.setErrorHandler((err) => {
      throw (err as { code?: string }).code === "FST_ERR_CTP_BODY_TOO_LARGE" ? new PlatformError(413, `The body is larger than maxBytes (${maxBytes(emu)} bytes)`) : err;
    });
    scope.put("/_uploads/:uploadId", { bodyLimit: maxBytes(emu) }, async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const u = completeUpload(emu, (req.params as { uploadId: string }).uploadId, {
        query: req.query as Record<string, unknown>, headers: req.headers, body,
      });
      return reply.code(200).send({ uploadId: u.id, sizeBytes: u.sizeBytes, files: Object.keys(u.files ?? {}).length });
    });
  });
}
