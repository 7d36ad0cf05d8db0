// Control routes of previews (tests only): open a preview, as a pull request would.
import type { FastifyInstance } from "fastify";
import { controlRoute } from "../../control";
import type { Emu } from "../../emu";
import { openBody, openedPreviewView, openPreview } from "../../models/previews";

export function previewControlRoutes(app: FastifyInstance, emu: Emu): void {
  controlRoute(app, {
    method: "POST", url: "/_emulator/previews", body: openBody, status: 201,
    handler: ({ body }) => openedPreviewView(emu, openPreview(emu, body)),
  });
}
