// Pull-request previews (infrastructure routes §2.6, §4.9) are opened by the platform for each pull
// request, so they are not a resource: Service.previewsEnabled turns them on, and getPreviews lists
// them. This file holds the function's description and its mapper.
import { z } from "zod";
import type { V1PrPreview } from "../api/domains";
import { previewApi } from "../api/endpoints/domains";
import { defineFunction } from "../functions";
import { id } from "./rules";

// ---- schemas ----
export const previewOutput = z.object({
  id: z.string().describe("The preview's id."),
  projectId: z.string().nullable(),
  sourceServiceId: z.string().nullable().describe("The service the preview copies."),
  repoFullName: z.string().nullable(),
  prNumber: z.number().describe("The pull request's number."),
  headRef: z.string().nullable().describe("The pull request's branch."),
  baseRef: z.string().nullable(),
  headSha: z.string().nullable(),
  authorLogin: z.string().nullable(),
  title: z.string().nullable(),
  status: z.string().describe("ACTIVE, CLOSED, CREATING, FAILED or UPDATING (the set is open)."),
  error: z.string().nullable(),
  url: z.string().nullable().describe("Where the preview is served."),
  environmentId: z.string().nullable().describe("The preview environment (isPreview)."),
  lastDeploymentId: z.string().nullable(),
  previewWebServiceId: z.string().nullable(),
  previewPostgresServiceId: z.string().nullable(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
}).meta({ typeName: "PrPreview" });
export type PreviewOutput = z.infer<typeof previewOutput>;

// ---- mappers ----
export function toPreviewOutput(p: V1PrPreview): PreviewOutput {
  const n = <T>(v: T | null | undefined) => v ?? null;
  return {
    id: p.id, projectId: n(p.projectId), sourceServiceId: n(p.sourceServiceId), repoFullName: n(p.repoFullName), prNumber: p.prNumber,
    headRef: n(p.headRef), baseRef: n(p.baseRef), headSha: n(p.headSha), authorLogin: n(p.authorLogin), title: n(p.title),
    status: p.status, error: n(p.error), url: n(p.url), environmentId: n(p.environmentId), lastDeploymentId: n(p.lastDeploymentId),
    previewWebServiceId: n(p.previewWebServiceId), previewPostgresServiceId: n(p.previewPostgresServiceId),
    createdAt: n(p.createdAt), updatedAt: n(p.updatedAt),
  };
}

// ---- functions ----
export const getPreviews = defineFunction<{ serviceId: string }>("getPreviews", {
  token: "cloudplatform:index:getPreviews",
  description: "The pull-request previews of a service (open and closed), with their status, URL and environment.",
  inputs: z.object({ serviceId: id("The service's id.") }),
  outputs: z.object({ previews: z.array(previewOutput).describe("The service's previews.") }),
  async invoke(ctx, args) {
    const all = await previewApi.list(ctx.client, args.serviceId);
    return { previews: all.map(toPreviewOutput) };
  },
});
