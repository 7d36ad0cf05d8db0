// POST and GET /graphql (conventions §4.2, §7.2). The route is the platform's like any other (the
// gate, the rate limit, the request log); its body is handed as sent to the GraphQL service
// (server.ts), which is loaded on the first GraphQL request: graphql-js and mercurius are a third
// of what starting the emulator loads, and most runs never ask a GraphQL question.
import type { FastifyInstance } from "fastify";
import type { Emu } from "../emu";
import type { PlatformError } from "../errors";
import { errorExtensions } from "./codes";

export const GRAPHQL_PATH = "/graphql";

/** A refusal made before GraphQL runs (the per-key rate limit), in the §7.2 shape. */
export function graphqlRefusal(err: PlatformError): { data: null; errors: { message: string; extensions: Record<string, unknown> }[] } {
  return { data: null, errors: [{ message: err.message, extensions: errorExtensions(err) }] };
}

export function registerGraphql(app: FastifyInstance, emu: Emu): void {
  let server: Promise<FastifyInstance> | undefined;
  const service = () => (server ??= import("./server").then(async (m) => {
    const s = m.graphqlServer(emu, GRAPHQL_PATH);
    await s.ready();
    return s;
  }));
  app.register(async (scope) => {
    // The body as sent (within the server's body limit): the service reads it with its own parsers (application/graphql too).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
    scope.setErrorHandler(async (err, _req, reply) => {
      const { graphqlFailure } = await import("./server");
      return reply.code(200).send(graphqlFailure(emu, err as Error));
    });
    scope.route({
      method: ["GET", "POST"],
      url: GRAPHQL_PATH,
      handler: async (req, reply) => {
        const headers = { ...req.headers };
        delete headers["content-length"];
        delete headers["transfer-encoding"];
        const res = await (await service()).inject({ method: req.method as "GET" | "POST", url: req.url, headers, payload: req.body as Buffer | undefined });
        reply.code(res.statusCode);
        const type = res.headers["content-type"];
        if (type) reply.type(String(type));
        return reply.send(res.rawPayload);
      },
    });
  });
}
