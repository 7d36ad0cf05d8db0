// The GraphQL schema: every area's types and fields in one document. A new area is one more
// entry in AREAS. docs/api-assumptions.md holds the printed schema (a test
// compares them).
import { buildSchema, printSchema } from "graphql";
import { mailArea } from "./mail";
import type { GraphQLArea, Resolver } from "./operation";
import { staticSitesArea } from "./static-sites";
import { teamsArea } from "./teams";
import { tokensArea } from "./tokens";

export const AREAS: GraphQLArea[] = [teamsArea, mailArea, tokensArea, staticSitesArea];

export function schemaSdl(areas = AREAS): string {
  const fields = (kind: "query" | "mutation") => areas.map((a) => a[kind] ?? "").join("");
  return [
    ...areas.map((a) => a.types),
    `type Query {${fields("query")}\n}`,
    ...(areas.some((a) => a.mutation) ? [`type Mutation {${fields("mutation")}\n}`] : []),
  ].join("\n");
}

/** The schema as graphql-js prints it: the form written in the docs. */
export const printedSchema = (areas = AREAS) => printSchema(buildSchema(schemaSdl(areas)));

export function resolvers(areas = AREAS): { Query: Record<string, Resolver>; Mutation: Record<string, Resolver> } {
  return {
    Query: Object.assign({}, ...areas.map((a) => a.resolvers.Query ?? {})),
    Mutation: Object.assign({}, ...areas.map((a) => a.resolvers.Mutation ?? {})),
  };
}
