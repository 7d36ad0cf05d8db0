// The vocabulary of the endpoint functions: each takes the client first, names its path and
// method, sends a typed body and parses the answer with the family's zod schema (api/*.ts).
import type { CloudPlatformClient, RequestOptions } from "../../client";

export type Client = CloudPlatformClient;

/** What a create's caller decides: whether it makes the operation's own object, and how to confirm a replay. */
export type CreateOptions<T> = Pick<RequestOptions<T>, "own" | "exists" | "idempotencyKey">;

/** One path segment, encoded. */
export const seg = (value: string) => encodeURIComponent(value);

/** The size of a page the list endpoints ask for where the route allows it. */
export const PAGE = 100;
