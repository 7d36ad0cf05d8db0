// Builds the HTTP server: the route table, then the conventions every route shares (request ids,
// bearer auth and scopes, idempotency, the error body) and the test-only fault hooks.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { randomUUID } from "node:crypto";
import { authenticate, SCOPES } from "./auth";
import type { Emu } from "./emu";
import { PlatformError, tooManyRequests } from "./errors";
import { type AnyRouteDef, BODY_LIMIT, type Ctx, parseJsonBody } from "./http";
import { idempotencyKey, replyOnce } from "./idempotency";
import { graphqlRefusal } from "./graphql";
import { s3AccessKeyIdOf } from "./s3/routes";
import { registerSurfaces } from "./routes/surfaces";
import { type GuardOptions, installGuard, rewriteTarget, surfaceOf } from "./guard";

const REQUEST_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

// Handlers check their input with zod; no route has a fastify schema. These compilers keep fastify
// from loading Ajv and fast-json-stringify at each start (a module load per test file under Jest),
// and refuse a route that brings a schema, so one cannot be added and silently skipped.
const noSchema = (): never => {
  throw new Error("emulator routes check their input with zod (http.ts parse), not fastify schemas");
};
const NO_SCHEMA_COMPILERS = { compilersFactory: { buildValidator: () => noSchema, buildSerializer: () => noSchema } };

export function buildApp(emu: Emu, guard: GuardOptions = {}): FastifyInstance {
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    schemaController: NO_SCHEMA_COMPILERS,
    // One spelling of each request target before routing; guard.ts refuses those it cannot spell.
    rewriteUrl: rewriteTarget,
    requestIdHeader: false,
    genReqId: (req) => {
      const sent = req.headers["x-request-id"];
      return typeof sent === "string" && REQUEST_ID.test(sent) ? sent : `req_${randomUUID().replace(/-/g, "")}`;
    },
  });

  app.addContentTypeParser("application/json", { parseAs: "string" }, parseJsonBody);

  installGuard(app, emu, guard);
  app.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
    const path = req.url.split("?")[0];
    const surface = surfaceOf(req);
    // The control API and the dashboard have no API key to count.
    if (surface?.plane !== "emulator") {
      // An S3 request's signature differs every time: its access key is what the limit counts.
      const s3Key = s3AccessKeyIdOf(req.headers.authorization, req.url);
      const waitMs = emu.rateLimit.take(s3Key ? `s3 ${s3Key}` : req.headers.authorization);
      if (waitMs > 0) {
        const err = tooManyRequests(String(Math.max(1, Math.ceil(waitMs / 1000))));
        emu.count(`${req.method} rate-limited`, 429);
        // GraphQL answers every failure with HTTP 200 and a code (conventions §7.2).
        if (surface?.name === "graphql") return reply.code(200).send(graphqlRefusal(err));
        for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
        return reply.code(429).send(err.body());
      }
    }
    const slow = emu.faults.take("latency", req.method, path);
    if (slow?.latencyMs) await new Promise((r) => setTimeout(r, slow.latencyMs));
    const fail = emu.faults.take("status", req.method, path);
    if (fail) {
      const status = fail.status ?? 503;
      const err = status === 429
        ? tooManyRequests(retryAfterValue(fail.retryAfter, fail.retryAfterSeconds ?? 1))
        : new PlatformError(status, fail.message ?? "Injected fault", fail.retryAfterSeconds !== undefined
          ? { "retry-after": retryAfterValue(fail.retryAfter, fail.retryAfterSeconds) } : {});
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return reply.code(status).send(err.body());
    }
  });

  // An answered change is in the state (`--state`): what was changed is written before the reply
  // leaves, in one write shared by the replies that finish in the same turn of the event loop.
  app.addHook("onSend", async (req, reply, payload) => {
    if (emu.stopping) reply.header("connection", "close");
    try {
      await emu.commit();
      return payload;
    } catch (err) {
      emu.log({ kind: "error", msg: "could not write the state", error: String(err), requestId: req.id });
      const e = new PlatformError(500, `The emulator could not write its state, so the change may not survive a restart: ${(err as Error).message}`);
      reply.code(500).type("application/json; charset=utf-8");
      return JSON.stringify(e.body());
    }
  });

  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url ?? "unmatched";
    // The path without its query, which may hold a presigned URL's signature; never a header.
    if (emu.logSink) emu.log({
      kind: "http", msg: `${req.method} ${req.url.split("?")[0]} ${reply.statusCode}`, method: req.method, route,
      status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10, requestId: req.id,
    });
    if (!route.startsWith("/_emulator")) emu.count(`${req.method} ${route}`, reply.statusCode);
  });

  // The dashboard's request log (not its own polling): no headers or bodies, credentials masked.
  app.addHook("onResponse", async (req, reply) => {
    if (surfaceOf(req)?.name.startsWith("dashboard")) return;
    emu.requests.add({
      method: req.method, url: req.url, route: req.routeOptions.url ?? null, status: reply.statusCode, ms: reply.elapsedTime,
      requestId: req.id, authorization: req.headers.authorization,
    });
  });

  app.setErrorHandler((err, req, reply) => sendError(emu, req, reply, err));
  app.setNotFoundHandler((req, reply) =>
    sendError(emu, req, reply, new PlatformError(404, `Route ${req.method} ${req.url.split("?")[0]} not found`)),
  );

  registerSurfaces(app, emu, (def) => register(app, emu, def));
  return app;
}

function register(app: FastifyInstance, emu: Emu, def: AnyRouteDef): void {
  app.route({
    method: def.method,
    url: def.url,
    ...("bodyLimit" in def && def.bodyLimit ? { bodyLimit: def.bodyLimit } : {}),
    handler: async (req, reply) => {
      const headers = req.headers as Ctx["headers"];
      if ("public" in def) {
        const out = await def.handler({ params: req.params as Record<string, string>, query: req.query as Record<string, unknown>, body: req.body, headers, emu });
        return reply.code(out.status).send(out.body);
      }
      const principal = authenticate(emu.store, headers, SCOPES[def.scope], emu.now());
      const ctx: Ctx = {
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body: req.body,
        headers,
        principal,
        emu,
      };
      const key = def.idempotent ? idempotencyKey(headers) : undefined;
      const run = async () => def.handler(ctx);
      const out = key ? await replyOnce(emu, `${principal.key.id} ${def.method} ${req.url.split("?")[0]}`, key, req.body, run) : await run();

      // "Commit, then drop the connection": the change is stored, the caller never hears of it.
      if (emu.faults.take("drop", req.method, req.url.split("?")[0])) {
        emu.count(`${req.method} ${def.url}`, 0);
        emu.save();
        req.raw.socket.destroy();
        return reply.hijack();
      }
      reply.code(out.status);
      for (const [k, v] of Object.entries(out.headers ?? {})) reply.header(k, v);
      if (out.status === 204 || out.body === undefined) return reply.send();
      if (out.contentType) reply.type(out.contentType);
      return reply.send(out.body);
    },
  });
}

function sendError(emu: Emu, req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  let e: PlatformError;
  if (err instanceof PlatformError) e = err;
  else {
    const fe = err as { statusCode?: number; code?: string; message?: string };
    if (fe.code === "FST_ERR_CTP_BODY_TOO_LARGE") e = new PlatformError(413, `Request body is larger than ${req.routeOptions.bodyLimit ?? BODY_LIMIT} bytes`);
    else if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) e = new PlatformError(fe.statusCode, fe.message ?? "Bad request");
    else {
      // Logged whether or not --log is on (stderr by default): a 500 always leaves its stack.
      emu.log({ kind: "error", msg: `${req.method} ${req.url.split("?")[0]}: ${(err as Error)?.message ?? String(err)}`, requestId: req.id, stack: (err as Error)?.stack });
      e = new PlatformError(500, "Internal server error");
    }
  }
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  return reply.code(e.statusCode).send(e.body());
}

function retryAfterValue(kind: "seconds" | "date" | undefined, seconds: number): string {
  return kind === "date" ? new Date(Date.now() + seconds * 1000).toUTCString() : String(seconds);
}
