// Response shapes of the static upload and site routes (infrastructure routes §2.6). Loose objects:
// unknown fields are kept.
import { z } from "zod";
import { V1Deploy, V1Service } from "./services";

export const V1UploadHeader = z.looseObject({ name: z.string(), value: z.string() });

export const V1StaticUpload = z.looseObject({
  uploadId: z.string(),
  url: z.string(),
  method: z.string().default("PUT"),
  // Tolerate a plain name → value map as well as the spec's array of V1UploadHeader.
  headers: z.union([z.array(V1UploadHeader), z.record(z.string(), z.string())]).default([]),
  maxBytes: z.number().nullish(),
  expiresInSeconds: z.number().nullish(),
});
export type V1StaticUpload = z.infer<typeof V1StaticUpload>;

export const V1StaticSite = z.looseObject({ site: V1Service, deploy: V1Deploy });
export type V1StaticSite = z.infer<typeof V1StaticSite>;
