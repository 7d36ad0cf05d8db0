// Pull-request preview routes (infrastructure routes §4.9). Previews are opened by the control
// route POST /_emulator/previews, as a pull request would open them.
import { noContent, ok, page, parse, type RouteDef } from "../http";
import { closePreview, setPreviewsEnabled } from "../models/cascades";
import { getPreview, previewsEnabledBody, previewsOf, previewView } from "../models/previews";
import { getService } from "../models/services";

export const previewRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/services/:serviceId/previews", scope: "Rp",
    handler: ({ principal, params, query, emu }) =>
      ok(page(previewsOf(emu, getService(emu, principal, params.serviceId).id).map((p) => previewView(emu, p)), query)),
  },
  {
    method: "PUT", url: "/v1/services/:serviceId/previews-enabled", scope: "Wp",
    handler: ({ principal, params, body, emu }) => {
      setPreviewsEnabled(emu, getService(emu, principal, params.serviceId), parse(previewsEnabledBody, body).enabled);
      return noContent();
    },
  },
  {
    method: "GET", url: "/v1/previews/:previewId", scope: "Rp",
    handler: ({ principal, params, emu }) => ok(previewView(emu, getPreview(emu, principal, params.previewId))),
  },
  {
    method: "DELETE", url: "/v1/previews/:previewId", scope: "Wp",
    handler: ({ principal, params, emu }) => ok(previewView(emu, closePreview(emu, getPreview(emu, principal, params.previewId)))),
  },
];
