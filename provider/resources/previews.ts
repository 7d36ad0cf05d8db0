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
  projectId: z.string().nullable().describe("The project of the source service."),
  sourceServiceId: z.string().nullable().describe("The service the preview copies."),
  repoFullName: z.string().nullable().describe("The repository, owner/name."),
  prNumber: z.number().describe("The pull request's number."),
  headRef: z.string().nullable().describe("The pull request's branch."),
  baseRef: z.string().nullable().describe("The branch the pull request merges into."),
  headSha: z.string().nullable().describe("The commit the preview runs."),
  authorLogin: z.string().nullable().describe("Who opened the pull request."),
  title: z.string().nullable().describe("The pull request's title."),
  status: z.string().describe("ACTIVE, CLOSED, CREATING, FAILED or UPDATING (the set is open)."),
  error: z.string().nullable().describe("Why the preview failed; null otherwise."),
  url: z.string().nullable().describe("Where the preview is served."),
  environmentId: z.string().nullable().describe("The preview environment (isPreview)."),
  lastDeploymentId: z.string().nullable().describe("The preview's latest deploy."),
  previewWebServiceId: z.string().nullable().describe("The web service the preview runs."),
  previewPostgresServiceId: z.string().nullable().describe("The preview's own Postgres database, when it has one."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
  updatedAt: z.string().nullable().describe("Last change (ISO 8601)."),
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
