// Static uploads, sites and static deploys (infrastructure routes §4.9). Reserving an upload and
// deploying to an existing site take DEPLOYS or PLATFORM_API (conventions §5.4 and the route
// table); creating a site takes PLATFORM_API. The presigned PUT and the served sites are in
// routes/public/ (no API key: the URL is the credential).
import { accepted, created, parse, type RouteDef } from "../http";
import { acceptedDeployView } from "../models/deploys";
import { acceptedServiceView } from "../models/service-views";
import { getService } from "../models/services";
import {
  deploySite, publishSite, publishSiteBody, reserveUpload, reserveUploadBody, staticDeployBody,
} from "../models/static-sites";

export const staticSiteRoutes: RouteDef[] = [
  {
    method: "POST", url: "/v1/static-uploads", scope: "Wdp",
    handler: ({ principal, body, emu }) => created(reserveUpload(emu, principal, parse(reserveUploadBody, body))),
  },
  {
    method: "POST", url: "/v1/static-sites", scope: "Wp", idempotent: true,
    handler: ({ principal, body, emu }) => {
      const { site, deploy } = publishSite(emu, principal, parse(publishSiteBody, body));
      return created({ site: acceptedServiceView(emu, site), deploy: acceptedDeployView(emu, deploy) });
    },
  },
  {
    method: "POST", url: "/v1/services/:serviceId/static-deploys", scope: "Wdp", idempotent: true,
    handler: ({ principal, params, body, emu }) => {
      const site = getService(emu, principal, params.serviceId);
      return accepted(acceptedDeployView(emu, deploySite(emu, principal, site, parse(staticDeployBody, body))));
    },
  },
];
