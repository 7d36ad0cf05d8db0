// The mail screens' operations (conventions §4.2, §2.6): they need EMAIL_SEND (§5.3).
import { SCOPES } from "../auth";
import { publishMailDomainRecords } from "../models/mail-publish";
import { operation, type GraphQLArea } from "./operation";

export const mailArea: GraphQLArea = {
  types: `
"""A record of a platform DNS zone (V1DnsRecord)."""
type DnsRecord {
  id: ID! zoneId: ID! name: String! type: String! content: String! ttl: Int! priority: Int
  origin: String! editable: Boolean! createdAt: String! updatedAt: String!
}

type PublishedMailRecords {
  domainId: ID!
  zoneId: ID!
  zoneName: String!
  """How many records this call made; 0 when all were already there."""
  created: Int!
  """The zone's record for each mail record, in the domain's order (DKIM, SPF, MX, DMARC)."""
  records: [DnsRecord!]!
}
`,
  mutation: `
  """Publishes a mail domain's DNS records into the platform zone of the same workspace that hosts it."""
  publishMailDomainRecords(domainId: ID!): PublishedMailRecords!`,
  resolvers: {
    Mutation: {
      publishMailDomainRecords: operation(SCOPES.We, ({ domainId }, { emu, principal }) =>
        publishMailDomainRecords(emu, principal, domainId)),
    },
  },
};
