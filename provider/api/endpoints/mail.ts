// Mail domain, limits and suppression endpoints (conventions §4.5-4.9).
import { MailDomainResponse, type V1MailDomainDetail, V1MailDomain, V1MailLimits, V1Suppression } from "../mail";
import { type Client, type CreateOptions, PAGE, seg } from "./endpoint";

export interface MailDomainCreateBody { name: string; region?: string }

const domains = (workspaceId: string) => `/v1/workspaces/${seg(workspaceId)}/mail/domains`;
const domain = (workspaceId: string, id: string) => `${domains(workspaceId)}/${seg(id)}`;

export const mailDomainApi = {
  list: (c: Client, workspaceId: string) => c.list(domains(workspaceId), { item: V1MailDomain }),
  get: (c: Client, workspaceId: string, id: string) => c.get(domain(workspaceId, id), { schema: MailDomainResponse }),
  create: (c: Client, workspaceId: string, body: MailDomainCreateBody, opts: CreateOptions<V1MailDomainDetail> = {}) =>
    c.create(domains(workspaceId), body, { schema: MailDomainResponse, ...opts }),
  delete: (c: Client, workspaceId: string, id: string) => c.delete(domain(workspaceId, id)),
  verify: (c: Client, workspaceId: string, id: string) => c.post(`${domain(workspaceId, id)}/verify`, undefined, { schema: MailDomainResponse }),
  limits: (c: Client, workspaceId: string) => c.get("/v1/limits", { query: { workspaceId }, schema: V1MailLimits }),
};

/** Without a workspace the key's own is meant (a mail key has one). */
export const suppressionApi = {
  each: (c: Client, workspaceId: string | undefined) => c.paginate("/v1/suppressions", { item: V1Suppression, query: { workspaceId }, pageSize: PAGE }),
  create: (c: Client, workspaceId: string | undefined, address: string) => c.post("/v1/suppressions", { address }, { schema: V1Suppression, query: { workspaceId } }),
  delete: (c: Client, workspaceId: string | undefined, address: string) => c.delete(`/v1/suppressions/${seg(address)}`, { query: { workspaceId } }),
};
