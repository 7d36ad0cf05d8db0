// A minimal S3-style object API on each bucket's `endpoint` ({baseUrl}/_storage/{region}/{bucket}):
// PUT, GET and DELETE of /{key}, and GET of the bucket itself (`?list` or `?list-type=2`) listing
// it. Callers authenticate with a storage access key, `Authorization: Bearer <accessKeyId>:<secret>`;
// a PUBLIC_READ bucket also answers anonymous GETs. The bucket's CORS rules answer preflights and
// add the CORS headers to responses, as a browser would see them. Plus the control routes tests use.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Workspace } from "./auth";
import { controlRoute, extendControl } from "./control";
import type { Emu } from "./emu";
import { forbidden, notFound, PlatformError, unauthorized } from "./errors";
import {
  accessKeyFor, accessKeysOf, type Bucket, bucketRegion, corsOf, type CorsRule, getBucket, objects, objectsOf, objectView, putObject,
} from "./models/storage";

const MAX_OBJECT_BYTES = 10 * 1024 * 1024;

function send(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof PlatformError) return reply.code(err.statusCode).send(err.body());
  throw err;
}

/** The bucket at /_storage/{region}/{bucket}, whichever workspace holds it. */
function bucketAt(emu: Emu, region: string, name: string): Bucket {
  const b = emu.store.table<Bucket>("buckets").find((x) => x.name === name && x.region === region);
  if (!b) throw notFound("Bucket", `'${name}' in region ${region}`);
  return b;
}

/** Writes need a key of the bucket's workspace; reads too, unless the bucket is PUBLIC_READ. */
function authorise(emu: Emu, b: Bucket, header: string | undefined, write: boolean): void {
  if (!header) {
    if (!write && b.visibility === "PUBLIC_READ") return;
    throw unauthorized(`Bucket '${b.name}' is private: send Authorization: Bearer <accessKeyId>:<secret> with a storage access key of its workspace`);
  }
  const key = accessKeyFor(emu, header);
  if (!key) throw unauthorized("Invalid storage access key: expected Authorization: Bearer <accessKeyId>:<secret>");
  if (key.workspaceId !== b.workspaceId) throw forbidden(`Storage access key ${key.accessKeyId} belongs to another workspace than bucket '${b.name}'`);
}

/** The first rule that allows this origin and method (origins: exact, `*`, or one `*` wildcard). */
function corsMatch(emu: Emu, b: Bucket, origin: string, method: string, headers: string[] = []): CorsRule | undefined {
  const originOk = (pattern: string) => {
    if (pattern === "*" || pattern === origin) return true;
    const star = pattern.indexOf("*");
    return star >= 0 && origin.startsWith(pattern.slice(0, star)) && origin.endsWith(pattern.slice(star + 1));
  };
  const headersOk = (r: CorsRule) => {
    const allowed = (r.allowedHeaders ?? []).map((h) => h.toLowerCase());
    return allowed.includes("*") || headers.every((h) => allowed.includes(h));
  };
  return corsOf(emu, b).find((r) => r.allowedOrigins.some(originOk) && r.allowedMethods.includes(method) && headersOk(r));
}

/** Adds the CORS response headers when the request has an Origin a rule allows. */
function withCors(emu: Emu, b: Bucket, req: FastifyRequest, reply: FastifyReply): void {
  const origin = req.headers.origin;
  if (!origin) return;
  const rule = corsMatch(emu, b, origin, req.method);
  if (!rule) return;
  reply.header("access-control-allow-origin", rule.allowedOrigins.includes("*") ? "*" : origin).header("vary", "Origin");
  if (rule.exposeHeaders?.length) reply.header("access-control-expose-headers", rule.exposeHeaders.join(", "));
}

function objectRoutes(app: FastifyInstance, emu: Emu): void {
  // Objects are raw bytes of any type: this scope reads every body as a buffer.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: MAX_OBJECT_BYTES }, (_req, body, done) => done(null, body));

    // A browser's preflight: answered from the bucket's CORS rules, without credentials.
    scope.options<{ Params: { region: string; bucket: string } }>("/_storage/:region/:bucket/*", async (req, reply) => {
      try {
        const b = bucketAt(emu, req.params.region, req.params.bucket);
        const origin = req.headers.origin;
        const method = String(req.headers["access-control-request-method"] ?? "").toUpperCase();
        const headers = String(req.headers["access-control-request-headers"] ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean);
        const rule = origin && method ? corsMatch(emu, b, origin, method, headers) : undefined;
        if (!rule) throw forbidden(`CORS preflight refused: no CORS rule of bucket '${b.name}' allows origin ${origin ?? "(none)"} with ${method || "(no method)"}${headers.length ? ` and headers ${headers.join(", ")}` : ""}`);
        reply.header("access-control-allow-origin", rule.allowedOrigins.includes("*") ? "*" : origin).header("vary", "Origin")
          .header("access-control-allow-methods", rule.allowedMethods.join(", "));
        if (headers.length) reply.header("access-control-allow-headers", headers.join(", "));
        if (rule.maxAgeSeconds !== null) reply.header("access-control-max-age", String(rule.maxAgeSeconds));
        return reply.code(200).send();
      } catch (err) {
        return send(reply, err);
      }
    });
    scope.get<{ Params: { region: string; bucket: string }; Querystring: Record<string, string> }>(
      "/_storage/:region/:bucket",
      async (req, reply) => {
        try {
          const b = bucketAt(emu, req.params.region, req.params.bucket);
          authorise(emu, b, req.headers.authorization, false);
          const prefix = req.query.prefix ?? "";
          const listed = objectsOf(emu, b.id).filter((o) => o.key.startsWith(prefix));
          return reply.send({ bucket: b.name, prefix, objects: listed.map(objectView) });
        } catch (err) {
          return send(reply, err);
        }
      },
    );
    scope.get<{ Params: { region: string; bucket: string; "*": string } }>("/_storage/:region/:bucket/*", async (req, reply) => {
      try {
        const b = bucketAt(emu, req.params.region, req.params.bucket);
        authorise(emu, b, req.headers.authorization, false);
        withCors(emu, b, req, reply);
        const o = objects(emu).find((x) => x.bucketId === b.id && x.key === req.params["*"]);
        if (!o) throw notFound("Object", `'${req.params["*"]}' in bucket '${b.name}'`);
        return reply.type(o.contentType).header("etag", `"${o.etag}"`).header("last-modified", new Date(o.lastModified).toUTCString())
          .send(Buffer.from(o.body, "base64"));
      } catch (err) {
        return send(reply, err);
      }
    });
    scope.put<{ Params: { region: string; bucket: string; "*": string } }>("/_storage/:region/:bucket/*", async (req, reply) => {
      try {
        const b = bucketAt(emu, req.params.region, req.params.bucket);
        authorise(emu, b, req.headers.authorization, true);
        withCors(emu, b, req, reply);
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const o = putObject(emu, b, req.params["*"], body, req.headers["content-type"] ?? "application/octet-stream");
        return reply.header("etag", `"${o.etag}"`).send(objectView(o));
      } catch (err) {
        return send(reply, err);
      }
    });
    scope.delete<{ Params: { region: string; bucket: string; "*": string } }>("/_storage/:region/:bucket/*", async (req, reply) => {
      try {
        const b = bucketAt(emu, req.params.region, req.params.bucket);
        authorise(emu, b, req.headers.authorization, true);
        // As in S3, deleting a key that is not there succeeds.
        const o = objects(emu).find((x) => x.bucketId === b.id && x.key === req.params["*"]);
        if (o) objects(emu).delete(o.id);
        return reply.code(204).send();
      } catch (err) {
        return send(reply, err);
      }
    });
  });
}

const controlObject = z.strictObject({
  bucket: z.string({ error: "must be a bucket name" }).min(1, "must be a bucket name"),
  key: z.string({ error: "must be an object key" }).min(1, "must not be empty").max(1024, "must be at most 1024 characters"),
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

function controlRoutes(app: FastifyInstance, emu: Emu): void {
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
      emu.save();
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

extendControl((app, emu) => {
  objectRoutes(app, emu);
  controlRoutes(app, emu);
});
