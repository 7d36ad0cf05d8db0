// The static-site operations (conventions §4.2, §5.4): reserving an upload and redeploying an
// existing site need DEPLOYS (PLATFORM_API also does, as on the REST routes); deployStaticSite,
// which creates a site, needs PLATFORM_API. They run the same model as POST /v1/static-*.
import { SCOPES } from "../auth";
import { parse } from "../http";
import { acceptedDeployView } from "../models/deploys";
import { acceptedServiceView } from "../models/service-views";
import { getService } from "../models/services";
import { deploySite, publishSite, publishSiteBody, reserveUpload, reserveUploadBody, staticDeployBody } from "../models/static-sites";
import { operation, type GraphQLArea } from "./operation";

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

export const staticSitesArea: GraphQLArea = {
  types: `
type UploadHeader { name: String! value: String! }

"""A reserved upload (V1StaticUpload): send the bytes to url with method and headers, then publish uploadId."""
type StaticUpload { uploadId: ID! url: String! method: String! headers: [UploadHeader!]! maxBytes: Float! expiresInSeconds: Int! }

"""A deploy (V1Deploy), the fields a static site needs."""
type StaticDeploy { id: ID! serviceId: ID! status: String! trigger: String createdAt: String! }

"""A STATIC service (V1Service), the fields a static site needs."""
type StaticSiteService { id: ID! environmentId: ID! name: String! type: String! status: String! url: String }

type StaticSite { site: StaticSiteService! deploy: StaticDeploy! }
`,
  mutation: `
  """Reserves an upload of a .zip or .html file (DEPLOYS)."""
  createStaticUpload(filename: String!, contentType: String!, sizeBytes: Float!): StaticUpload!
  """Publishes an uploaded file as a new site; without environmentId, in the workspace's static-sites project (PLATFORM_API)."""
  deployStaticSite(uploadId: ID!, environmentId: ID, name: String, indexPath: String, spaFallback: Boolean): StaticSite!
  """Replaces an existing site's content in place, on the same URL (DEPLOYS)."""
  redeployStaticSite(serviceId: ID!, uploadId: ID!, indexPath: String, spaFallback: Boolean): StaticDeploy!`,
  resolvers: {
    Mutation: {
      createStaticUpload: operation(SCOPES.Wdp, (args, { emu, principal }) => reserveUpload(emu, principal, parse(reserveUploadBody, args))),
      deployStaticSite: operation(SCOPES.Wp, (args, { emu, principal }) => {
        const { site, deploy } = publishSite(emu, principal, parse(publishSiteBody, compact(args)));
        return { site: acceptedServiceView(emu, site), deploy: acceptedDeployView(emu, deploy) };
      }),
      redeployStaticSite: operation(SCOPES.Wdp, ({ serviceId, ...rest }, { emu, principal }) => {
        const site = getService(emu, principal, serviceId);
        return acceptedDeployView(emu, deploySite(emu, principal, site, parse(staticDeployBody, compact(rest))));
      }),
    },
  },
};
