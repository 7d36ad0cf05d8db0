// The GraphQL service behind POST /graphql (conventions §4.2, §7.2): mercurius on a server of its
// own, built on the first request (index.ts forwards to it), so an emulator that is never asked a
// GraphQL question never loads graphql-js. Failures are always HTTP 200 with `errors[]`, each with
// `message` and `extensions.code`, and `data` null when nothing resolved: a request the service
// cannot read (not JSON, no query, a query that is not a string) is the caller's input,
// BAD_USER_INPUT; only a fault of the emulator is INTERNAL_SERVER_ERROR.
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import mercurius from "mercurius";
import { z } from "zod";
import type { Emu } from "../emu";
import { PlatformError } from "../errors";
import { BODY_LIMIT, parse, parseJsonBody } from "../http";
import { checkGraphqlLimits } from "./limits";
import { type GqlContext, toGraphQLError } from "./operation";
import { resolvers, schemaSdl } from "./schema";

const operationName = z.string({ error: "must be a string" }).nullable().optional();
const postBody = z.object({
  query: z.string({ error: "is required: a GraphQL document as a string" }).trim().min(1, "must not be empty"),
  variables: z.record(z.string(), z.unknown(), { error: "must be an object of variable values" }).nullable().optional(),
  operationName,
}, { error: "must be a JSON object with a query string (and optional variables and operationName)" });
const getQuery = z.object({
  query: z.string({ error: "is required: a GraphQL document as a string" }).trim().min(1, "must not be empty"),
  variables: z.string().refine((v) => {
    try {
      const parsed = JSON.parse(v);
      return parsed === null || (typeof parsed === "object" && !Array.isArray(parsed));
    } catch {
      return false;
    }
  }, "must be a JSON object of variable values").optional(),
  operationName,
});

/** The request's shape, checked before mercurius reads it: a refusal names the field. */
async function checkRequest(req: FastifyRequest): Promise<void> {
  const { query } = req.method === "GET" ? parse(getQuery, req.query, "query") : parse(postBody, req.body);
  checkGraphqlLimits(query);
}

/** The GraphQL server of an emulator, answering GET and POST on `path`; made once per emulator. */
export function graphqlServer(emu: Emu, path: string): FastifyInstance {
  const app = Fastify({ bodyLimit: BODY_LIMIT });
  // The platform's own JSON rules (app.ts), so a body it cannot read is refused the same way.
  app.addContentTypeParser("application/json", { parseAs: "string" }, parseJsonBody);
  app.register(mercurius, {
    schema: schemaSdl(),
    resolvers: resolvers() as never,
    path,
    graphiql: false,
    // No query cache: its LRU is an ES module, which the CommonJS test runner cannot load.
    cache: false,
    // Before the route's own schema, which would coerce a number into a query string.
    additionalRouteOptions: { preValidation: checkRequest },
    context: (req): GqlContext => ({ emu, headers: req.headers, counted: new Map() }),
    errorFormatter: (execution) => ({
      statusCode: 200,
      response: { data: execution.data ?? null, errors: (execution.errors ?? []).flatMap((e) => specErrors(emu, e)) },
    }),
  });
  return app;
}

/** A failure met before the request reached the service (its body too large), in the §7.2 shape. */
export function graphqlFailure(emu: Emu, err: Error): { data: null; errors: GraphQLFormattedError[] } {
  return { data: null, errors: specErrors(emu, new GraphQLError(err.message, { originalError: err })) };
}

/** One error in the §7.2 shape; a request the schema refuses carries the graphql-js message. */
function specErrors(emu: Emu | undefined, err: GraphQLError): GraphQLFormattedError[] {
  const original = err.originalError as (Error & { errors?: GraphQLError[]; statusCode?: unknown }) | undefined;
  if (Array.isArray(original?.errors)) return original.errors.flatMap((e) => specErrors(emu, e));
  if (original instanceof PlatformError && err.extensions?.code === undefined) return specErrors(emu, toGraphQLError(original));
  let code = typeof err.extensions?.code === "string" ? err.extensions.code : undefined;
  let message = err.message;
  if (!code) {
    const status = typeof original?.statusCode === "number" ? original.statusCode : undefined;
    // Variables that fail their declared types are the caller's input; the message names the variable.
    if (/^Variable "\$/.test(err.message)) code = "BAD_USER_INPUT";
    else if (!original) code = "GRAPHQL_VALIDATION_FAILED";
    // The request itself could not be read (media type, size, JSON): the caller's input too.
    else if (status !== undefined && status >= 400 && status < 500) {
      code = "BAD_USER_INPUT";
      if (status === 415) message = "content-type: send the request as application/json (or application/graphql)";
      if (status === 413) message = `body: is larger than a request may be (${BODY_LIMIT / 1024 / 1024} MiB)`;
    }
    else {
      code = "INTERNAL_SERVER_ERROR";
      message = "Internal server error";
      emu?.log({ kind: "error", msg: `GraphQL: ${original.message}`, stack: original.stack });
    }
  }
  return [{ message, ...(err.locations ? { locations: err.locations } : {}), ...(err.path ? { path: err.path } : {}), extensions: { ...err.extensions, code } }];
}
