// getMyTeams: the workspaces the caller reaches (conventions §4.2).
import { SCOPES } from "../auth";
import { operation, type GraphQLArea } from "./operation";

export const teamsArea: GraphQLArea = {
  types: `
"""The caller's role in a team; null when not known."""
enum MemberRole { OWNER ADMIN MEMBER }

"""A workspace (team) the caller reaches; most operations take its id as teamId."""
type Team { id: ID! name: String! role: MemberRole defaultRegion: String }

type TeamList { items: [Team!]! }
`,
  query: `
  """The workspaces the caller's key or session reaches."""
  getMyTeams: TeamList!`,
  resolvers: {
    Query: {
      getMyTeams: operation(SCOPES.Rp, (_args, { principal }) => ({
        items: principal.memberships().map((m) => {
          const ws = principal.workspace(m.workspaceId);
          return { id: ws.id, name: ws.name, role: m.role, defaultRegion: ws.defaultRegion };
        }),
      })),
    },
  },
};
