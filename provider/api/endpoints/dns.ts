// DNS zone and record endpoints (infrastructure routes §4.1).
import { V1DnsRecord, V1DnsZone } from "../dns";
import { type Client, type CreateOptions, PAGE, seg } from "./endpoint";

export interface DnsRecordBody { name: string; type: string; content: string; ttl?: number; priority?: number | null }

const zones = (workspaceId: string) => `/v1/workspaces/${seg(workspaceId)}/dns-zones`;
const zone = (id: string) => `/v1/dns-zones/${seg(id)}`;
const record = (id: string) => `/v1/dns-records/${seg(id)}`;

export const dnsZoneApi = {
  list: (c: Client, workspaceId: string) => c.list(zones(workspaceId), { item: V1DnsZone, pageSize: PAGE }),
  create: (c: Client, workspaceId: string, body: { name: string }, opts: CreateOptions<V1DnsZone> = {}) =>
    c.create(zones(workspaceId), body, { schema: V1DnsZone, ...opts }),
  delete: (c: Client, id: string) => c.delete(zone(id)),
  /** Checks ownership now (public DNS); the zone comes back published once it is proven. */
  verify: (c: Client, id: string) => c.post(`${zone(id)}/verify`, undefined, { schema: V1DnsZone }),
};

export const dnsRecordApi = {
  list: (c: Client, zoneId: string) => c.list(`${zone(zoneId)}/records`, { item: V1DnsRecord, pageSize: PAGE }),
  create: (c: Client, zoneId: string, body: DnsRecordBody, opts: CreateOptions<V1DnsRecord> = {}) =>
    c.create(`${zone(zoneId)}/records`, body, { schema: V1DnsRecord, ...opts }),
  patch: (c: Client, id: string, body: Partial<DnsRecordBody>) => c.patch(record(id), body, { schema: V1DnsRecord }),
  delete: (c: Client, id: string) => c.delete(record(id)),
};
