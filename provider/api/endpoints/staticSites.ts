// Static upload, site and static deploy endpoints (infrastructure routes §4.9).
import { V1Deploy } from "../services";
import { V1StaticSite, V1StaticUpload } from "../staticSites";
import { type Client, type CreateOptions, seg } from "./endpoint";

export interface UploadBody { filename: string; contentType: string; sizeBytes: number }
export interface PublishBody { uploadId: string; environmentId?: string; name?: string; indexPath?: string; spaFallback?: boolean }
export interface StaticDeployBody { uploadId: string; indexPath?: string; spaFallback?: boolean }

export const staticSiteApi = {
  /** Reserves an upload: the presigned URL and headers to PUT the bytes to. */
  reserveUpload: (c: Client, body: UploadBody) => c.post("/v1/static-uploads", body, { schema: V1StaticUpload }),
  publish: (c: Client, body: PublishBody, opts: CreateOptions<V1StaticSite> = {}) => c.create("/v1/static-sites", body, { schema: V1StaticSite, ...opts }),
  deploy: (c: Client, serviceId: string, body: StaticDeployBody) => c.create(`/v1/services/${seg(serviceId)}/static-deploys`, body, { schema: V1Deploy }),
};
