// createApiToken and revokeApiToken (conventions §5.6-5.7, §8): a signed-in session only, never a
// key; at most 10 keys an hour; the new key's value is returned this once.
import { SCOPES } from "../auth";
import { parse } from "../http";
import { createApiToken, createApiTokenInput, revokeApiToken } from "../models/workspaces";
import { operation, type GraphQLArea } from "./operation";

export const tokensArea: GraphQLArea = {
  types: `
enum ApiTokenScope { READ WRITE EMAIL_SEND DEPLOYS DATABASES PLATFORM_API }

"""An area a new key may reach; its access level follows the creator's role."""
enum ApiTokenArea { EMAIL_SEND DEPLOYS DATABASES PLATFORM_API }

"""A key, by its hints only (V1ApiToken)."""
type ApiToken {
  id: ID! name: String! scopes: [ApiTokenScope!]! teamId: ID tokenHint: String! tokenTail: String
  createdAt: String! expiresAt: String lastUsedAt: String revokedAt: String updatedAt: String!
}

type CreatedApiToken {
  apiToken: ApiToken!
  """The key itself: shown this once, never again."""
  key: String!
}
`,
  mutation: `
  """Issues a key; teamId pins it to one workspace. Needs a signed-in session."""
  createApiToken(name: String!, scopes: [ApiTokenArea!]!, teamId: ID, expiresAt: String): CreatedApiToken!
  """Revokes a key at once. Needs a signed-in session."""
  revokeApiToken(id: ID!): ApiToken!`,
  resolvers: {
    Mutation: {
      createApiToken: operation(SCOPES.Wp, (args, { emu, principal }) => createApiToken(emu, principal, parse(createApiTokenInput, args, "input"))),
      revokeApiToken: operation(SCOPES.Wp, ({ id }, { emu, principal }) => revokeApiToken(emu, principal, id)),
    },
  },
};
