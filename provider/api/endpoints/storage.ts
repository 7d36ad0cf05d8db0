// Bucket and storage access key endpoints (infrastructure routes §4.7). Buckets are named by
// workspace, region and name; there is no GET of one bucket, only the region's list.
import { CorsResponse, PolicyResponse, V1StorageAccessKey, V1StorageBucket } from "../storage";
import { type Client, type CreateOptions, seg } from "./endpoint";

export interface BucketAt { workspaceId: string; region: string; name: string }
/** Without a name the platform picks one. */
export interface BucketCreateBody { name?: string; visibility?: string }
export interface CorsRuleBody { allowedMethods: string[]; allowedOrigins: string[]; allowedHeaders?: string[] | null; exposeHeaders?: string[] | null; maxAgeSeconds?: number | null }

const buckets = (workspaceId: string) => `/v1/workspaces/${seg(workspaceId)}/buckets`;
const bucket = (b: { workspaceId: string; name: string }) => `${buckets(b.workspaceId)}/${seg(b.name)}`;

export const bucketApi = {
  /** In pages of the most the platform gives (100): a bucket's read walks the region's list. */
  list: (c: Client, workspaceId: string, region?: string) => c.list(buckets(workspaceId), { query: { region }, item: V1StorageBucket, pageSize: 100 }),
  create: (c: Client, workspaceId: string, region: string | undefined, body: BucketCreateBody, opts: CreateOptions<V1StorageBucket> = {}) =>
    c.create(buckets(workspaceId), body, { query: { region }, schema: V1StorageBucket, ...opts }),
  /** Refused while the bucket holds objects, unless `force`. */
  delete: (c: Client, b: BucketAt, force: boolean) => c.delete(bucket(b), { query: { region: b.region, force: force ? true : undefined } }),
  cors: (c: Client, b: BucketAt) => c.get(`${bucket(b)}/cors`, { query: { region: b.region }, schema: CorsResponse }),
  putCors: (c: Client, b: BucketAt, rules: CorsRuleBody[]) => c.put(`${bucket(b)}/cors`, { rules }, { query: { region: b.region } }),
  deleteCors: (c: Client, b: BucketAt) => c.delete(`${bucket(b)}/cors`, { query: { region: b.region } }),
  policy: (c: Client, b: BucketAt) => c.get(`${bucket(b)}/policy`, { query: { region: b.region }, schema: PolicyResponse }),
  putPolicy: (c: Client, b: BucketAt, policy: string) => c.put(`${bucket(b)}/policy`, { policy }, { query: { region: b.region } }),
};

export const accessKeyApi = {
  list: (c: Client, workspaceId: string) => c.list(`/v1/workspaces/${seg(workspaceId)}/storage/access-keys`, { item: V1StorageAccessKey }),
};
