// POST /graphql (conventions §4.2, §7.2), served by mercurius. Failures are always HTTP 200 with
// `errors[]`, each with `message` and `extensions.code`, and `data` null when nothing resolved.
import type { FastifyInstance } from "fastify";
import type { GraphQLError, GraphQLFormattedError } from "graphql";
import mercurius from "mercurius";
import type { Emu } from "../emu";
import type { GqlContext } from "./operation";
import { resolvers, schemaSdl } from "./schema";

export function registerGraphql(app: FastifyInstance, emu: Emu): void {
  app.register(mercurius, {
    schema: schemaSdl(),
    resolvers: resolvers() as never,
    path: "/graphql",
    graphiql: false,
    // No query cache: its LRU is an ES module, which the CommonJS test runner cannot load.
    cache: false,
    context: (req): GqlContext => ({ emu, headers: req.headers, counted: new Map() }),
    errorFormatter: (execution) => ({
      statusCode: 200,
      response: { data: execution.data ?? null, errors: (execution.errors ?? []).flatMap(specErrors) },
    }),
  });
}

/** One error in the §7.2 shape; a request the schema refuses carries the graphql-js message. */
function specErrors(err: GraphQLError): GraphQLFormattedError[] {
  const inner = (err.originalError as { errors?: GraphQLError[] } | undefined)?.errors;
  if (Array.isArray(inner)) return inner.flatMap(specErrors);
  const code = typeof err.extensions?.code === "string"
    ? err.extensions.code
    // Variables that fail their declared types are the caller's input; the message names the variable.
    : /^Variable "\$/.test(err.message) ? "BAD_USER_INPUT" : err.originalError ? "INTERNAL_SERVER_ERROR" : "GRAPHQL_VALIDATION_FAILED";
  return [{ message: err.message, ...(err.locations ? { locations: err.locations } : {}), ...(err.path ? { path: err.path } : {}), extensions: { ...err.extensions, code } }];
}
