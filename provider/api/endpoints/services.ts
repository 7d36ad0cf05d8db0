// Service endpoints (infrastructure routes §4.3-4.5): services, their env vars, secret files,
// connection, cron settings and deploys, and the catalogue (regions, prices).
import { randomUUID } from "node:crypto";
import {
  V1Connection, V1Deploy, V1DeployLocation, V1DeployLogLine, V1EnvVar, V1EnvVarChange, V1PricingCatalog, V1SecretFile,
  V1SecretFileChange, V1Service,
} from "../services";
import { type Client, type CreateOptions, PAGE, seg } from "./endpoint";

export interface EnvVarBody { key: string; value: string; scope?: string; secret?: boolean }
export interface SecretFileBody { path: string; content: string }
/** POST /v1/environments/{id}/services: the settings of infrastructure routes §4.3, env vars and files included. */
export type ServiceCreateBody = { name: string; type: string; envVars?: EnvVarBody[]; secretFiles?: SecretFileBody[] } & Record<string, unknown>;
/** PATCH /v1/services/{id}: a source change deploys at once when `redeploy` is true. */
export interface ServicePatchBody { name?: string; build?: Record<string, unknown>; source?: Record<string, unknown> & { redeploy?: boolean } }
export interface CronPatchBody { schedule?: string; command?: string }

const service = (id: string) => `/v1/services/${seg(id)}`;
const inEnvironment = (environmentId: string) => `/v1/environments/${seg(environmentId)}/services`;

export const serviceApi = {
  get: (c: Client, id: string) => c.get(service(id), { schema: V1Service }),
  listIn: (c: Client, environmentId: string) => c.list(inEnvironment(environmentId), { item: V1Service }),
  create: (c: Client, environmentId: string, body: ServiceCreateBody, opts: CreateOptions<V1Service> = {}) =>
    c.create(inEnvironment(environmentId), body, { schema: V1Service, ...opts }),
  patch: (c: Client, id: string, body: ServicePatchBody) => c.patch(service(id), body, { schema: V1Service }),
  delete: (c: Client, id: string) => c.delete(service(id)),
  suspend: (c: Client, id: string) => c.post(`${service(id)}/suspend`),
  resume: (c: Client, id: string) => c.post(`${service(id)}/resume`),
  patchCron: (c: Client, id: string, body: CronPatchBody) => c.patch(`${service(id)}/cron`, body),
  setCronSuspended: (c: Client, id: string, suspended: boolean) => c.post(`${service(id)}/cron/${suspended ? "suspend" : "resume"}`),
  setPreviewsEnabled: (c: Client, id: string, enabled: boolean) => c.put(`${service(id)}/previews-enabled`, { enabled }),
  /** 404 until a database is provisioned; the password is empty for a read-only key. */
  connection: (c: Client, id: string) => c.get(`${service(id)}/connection`, { schema: V1Connection }),
};

export const envVarApi = {
  list: (c: Client, serviceId: string) => c.list(`${service(serviceId)}/env-vars`, { item: V1EnvVar, query: { limit: PAGE } }),
  /** Upserts by key; unlisted keys are kept. */
  upsert: (c: Client, serviceId: string, envVars: EnvVarBody[]) =>
    c.patch(`${service(serviceId)}/env-vars`, { envVars }, { schema: V1EnvVarChange, idempotencyKey: true }),
  /** The change it answers, when it answers one. */
  delete: async (c: Client, serviceId: string, key: string) =>
    V1EnvVarChange.safeParse((await c.request("DELETE", `${service(serviceId)}/env-vars/${seg(key)}`)).data).data,
};

export const secretFileApi = {
  list: (c: Client, serviceId: string) => c.list(`${service(serviceId)}/secret-files`, { item: V1SecretFile, query: { limit: PAGE } }),
  put: (c: Client, serviceId: string, file: SecretFileBody) =>
    c.put(`${service(serviceId)}/secret-files`, file, { schema: V1SecretFileChange, idempotencyKey: true }),
  delete: (c: Client, serviceId: string, path: string) => c.delete(`${service(serviceId)}/secret-files`, { query: { path } }),
};

export const deployApi = {
  /** A deploy is an action, not an object the service owns: each one gets its own key. */
  start: (c: Client, serviceId: string) => c.post(`${service(serviceId)}/deploys`, undefined, { idempotencyKey: randomUUID() }),
  /** The newest deploy of a service, if any. */
  latest: async (c: Client, serviceId: string) => {
    const page = await c.get<{ data?: unknown[] }>(`${service(serviceId)}/deploys`, { query: { limit: 1 } });
    const first = Array.isArray(page) ? page[0] : page?.data?.[0];
    return first ? V1Deploy.parse(first) : undefined;
  },
  /** Newest first, page by page. */
  each: (c: Client, serviceId: string) => c.paginate(`${service(serviceId)}/deploys`, { item: V1Deploy }),
  get: (c: Client, id: string) => c.get(`/v1/deploys/${seg(id)}`, { schema: V1Deploy }),
  logs: (c: Client, id: string) => c.list(`/v1/deploys/${seg(id)}/logs`, { item: V1DeployLogLine, query: { limit: PAGE } }),
};

export const catalogueApi = {
  regions: (c: Client) => c.list("/v1/regions", { item: V1DeployLocation }),
  pricing: (c: Client) => c.get("/v1/pricing", { schema: V1PricingCatalog }),
};
