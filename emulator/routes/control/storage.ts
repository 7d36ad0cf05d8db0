// The storage control routes tests use: put an object into a bucket without a key, and read the
// storage access keys with their secrets. The S3 endpoint that serves objects is in s3/routes.ts.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Workspace } from "../../auth";
import { controlRoute } from "../../control";
import type { Emu } from "../../emu";
import { notFound } from "../../errors";
import { objectView, putObject } from "../../models/objects";
import { accessKeysOf, bucketRegion, getBucket } from "../../models/storage";

const controlObject = z.strictObject({
  bucket: z.string({ error: "must be a bucket name" }).min(1, "must be a bucket name"),
  key: z.string({ error: "must be an object key" }).min(1, "must not be empty"),
  content: z.string({ error: "must be a string (utf8 text, or base64 with encoding base64)" }),
  encoding: z.enum(["utf8", "base64"], { error: "must be utf8 or base64" }).default("utf8"),
  contentType: z.string().regex(/^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/, "must look like type/subtype").default("application/octet-stream"),
  region: z.string().optional(),
  workspaceId: z.string().optional(),
}).superRefine((o, ctx) => {
  if (o.encoding === "base64" && !/^[A-Za-z0-9+/]*={0,2}$/.test(o.content.replace(/\s+/g, ""))) {
    ctx.addIssue({ code: "custom", path: ["content"], message: "must be base64 with encoding base64" });
  }
});

export function storageControlRoutes(app: FastifyInstance, emu: Emu): void {
  const seededWorkspace = (id: string | undefined): Workspace => {
    const seeded = emu.store.table<{ id: string; value: { workspaceId: string } }>("seed").get("seed")?.value.workspaceId;
    const ws = emu.store.table<Workspace>("workspaces").get(id ?? seeded ?? "");
    if (!ws) throw notFound("Workspace", id ?? "(seeded)");
    return ws;
  };
  /** Puts an object into a bucket without a key (tests). */
  controlRoute(app, {
    method: "POST", url: "/_emulator/storage/objects", body: controlObject, status: 201,
    handler: ({ body }) => {
      const ws = seededWorkspace(body.workspaceId);
      const b = getBucket(emu, ws, bucketRegion(emu, ws, { region: body.region }), body.bucket);
      const o = putObject(emu, b, body.key, Buffer.from(body.content, body.encoding), body.contentType);
      return objectView(o);
    },
  });
  /** Every storage access key with its secret, for tests and local tools. */
  controlRoute(app, {
    method: "GET", url: "/_emulator/storage/access-keys", query: z.strictObject({ workspaceId: z.string().optional() }),
    handler: ({ query }) => {
      const ws = seededWorkspace(query.workspaceId);
      return { data: accessKeysOf(emu, ws).map((k) => ({ workspaceId: k.workspaceId, name: k.name, accessKeyId: k.accessKeyId, secret: k.secret })) };
    },
  });
}

