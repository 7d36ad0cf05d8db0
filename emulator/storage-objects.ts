// The storage control routes tests use: put an object into a bucket without a key, and read the
// storage access keys with their secrets. The S3 endpoint that serves objects is in s3/routes.ts.
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Workspace } from "./auth";
import { extendControl } from "./control";
import type { Emu } from "./emu";
import { notFound, PlatformError } from "./errors";
import { parse } from "./http";
import { objectView, putObject } from "./models/objects";
import { accessKeysOf, bucketRegion, getBucket } from "./models/storage";

function send(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof PlatformError) return reply.code(err.statusCode).send(err.body());
  throw err;
}

const controlObject = z.object({
  bucket: z.string(),
  key: z.string().min(1),
  content: z.string(),
  encoding: z.enum(["utf8", "base64"]).default("utf8"),
  contentType: z.string().default("application/octet-stream"),
  region: z.string().optional(),
  workspaceId: z.string().optional(),
});

function controlRoutes(app: FastifyInstance, emu: Emu): void {
  const seededWorkspace = (id: string | undefined): Workspace => {
    const seeded = emu.store.table<{ id: string; value: { workspaceId: string } }>("seed").get("seed")?.value.workspaceId;
    const ws = emu.store.table<Workspace>("workspaces").get(id ?? seeded ?? "");
    if (!ws) throw notFound("Workspace", id ?? "(seeded)");
    return ws;
  };
  /** Puts an object into a bucket without a key (tests). */
  app.post("/_emulator/storage/objects", async (req, reply) => {
    try {
      const body = parse(controlObject, req.body);
      const ws = seededWorkspace(body.workspaceId);
      const b = getBucket(emu, ws, bucketRegion(emu, ws, { region: body.region }), body.bucket);
      const o = putObject(emu, b, body.key, Buffer.from(body.content, body.encoding), body.contentType);
      emu.save();
      return reply.code(201).send(objectView(o));
    } catch (err) {
      return send(reply, err);
    }
  });
  /** Every storage access key with its secret, for tests and local tools. */
  app.get<{ Querystring: { workspaceId?: string } }>("/_emulator/storage/access-keys", async (req, reply) => {
    try {
      const ws = seededWorkspace(req.query.workspaceId);
      return reply.send({ data: accessKeysOf(emu, ws).map((k) => ({ workspaceId: k.workspaceId, name: k.name, accessKeyId: k.accessKeyId, secret: k.secret })) });
    } catch (err) {
      return send(reply, err);
    }
  });
}

extendControl(controlRoutes);
