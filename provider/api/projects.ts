// Response shapes of the project and environment routes (infrastructure routes §2.2). Loose
// objects: unknown fields are kept, and enumerations are open.
import { z } from "zod";

export const V1Environment = z.looseObject({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  isPreview: z.boolean().default(false),
  paused: z.boolean().default(false),
  pausedAt: z.string().nullish(),
  kind: z.string().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type V1Environment = z.infer<typeof V1Environment>;

export const V1Project = z.looseObject({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  displayName: z.string().nullish(),
  description: z.string().nullish(),
  defaultRegion: z.string().nullish(),
  paused: z.boolean().default(false),
  pausedAt: z.string().nullish(),
  environments: z.array(V1Environment).optional(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type V1Project = z.infer<typeof V1Project>;

export const V1Workspace = z.looseObject({
  id: z.string(),
  name: z.string(),
  defaultRegion: z.string().nullish(),
  role: z.string().nullish(),
});
