// Custom domain and preview endpoints (infrastructure routes §4.9).
import { CustomDomainResponse, V1CustomDomain, V1PrPreview } from "../domains";
import { type Client, type CreateOptions, PAGE, seg } from "./endpoint";

const ofService = (serviceId: string) => `/v1/services/${seg(serviceId)}/custom-domains`;

export const customDomainApi = {
  list: (c: Client, serviceId: string) => c.list(ofService(serviceId), { item: V1CustomDomain, pageSize: PAGE }),
  create: (c: Client, serviceId: string, body: { domain: string }, opts: CreateOptions<V1CustomDomain> = {}) =>
    c.create(ofService(serviceId), body, { schema: CustomDomainResponse, ...opts }),
  delete: (c: Client, id: string) => c.delete(`/v1/custom-domains/${seg(id)}`),
  verify: (c: Client, id: string) => c.post(`/v1/custom-domains/${seg(id)}/verify`, undefined, { schema: CustomDomainResponse }),
};

export const previewApi = {
  list: (c: Client, serviceId: string) => c.list(`/v1/services/${seg(serviceId)}/previews`, { item: V1PrPreview }),
};
