// The platform's REST API with the worker's key: enough to make the resources an app's tests need
// when no Pulumi stack makes them (a database to connect to, a bucket to write to).
import { ENV, required } from "./env";

export class ApiError extends Error {
  constructor(readonly status: number, method: string, path: string, body: string) {
    super(`${method} ${path}: ${status} ${body.slice(0, 500)}`);
    this.name = "ApiError";
  }
}

/** Calls the platform API on the worker's emulator with CLOUDPLATFORM_API_KEY; resolves with the `data` of the answer, or the answer. */
export async function api<T = any>(method: string, path: string, body?: unknown, key = required(ENV.apiKey)): Promise<T> {
  const base = required(ENV.baseUrl).replace(/\/+$/, "");
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, method, path, text);
  const parsed = text ? JSON.parse(text) : undefined;
  return (parsed && typeof parsed === "object" && "data" in parsed && !Array.isArray(parsed) && Object.keys(parsed).length === 1 ? parsed.data : parsed) as T;
}

export interface Bucket {
  id: string;
  name: string;
  region: string;
  endpoint: string;
  [field: string]: unknown;
}

/** Makes a bucket in the worker's workspace (PRIVATE unless told); an S3 client from s3Client() reaches it. */
export async function createBucket(name: string, visibility: "PRIVATE" | "PUBLIC_READ" = "PRIVATE"): Promise<Bucket> {
  return api<Bucket>("POST", `/v1/workspaces/${required(ENV.workspaceId)}/buckets`, { name, visibility });
}
