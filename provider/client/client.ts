// The platform REST client: bearer auth, request ids, retries through undici's RetryAgent,
// idempotency keys on creates, cursor pagination, and zod-checked responses.
import { randomUUID } from "node:crypto";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { ApiError, ConfigurationError, ConnectionError, RateLimitError, ResponseValidationError } from "./errors";
import { currentOperation, deriveIdempotencyKey, isReplay } from "./idempotency";
import { checkKeyShape, isLoopbackHost, type KeyPrefix, redactKeys, redactUrlCredentials } from "./keys";
import { type AdaptiveLimiter, sharedLimiter } from "./limiter";
import { backoffMs, DEFAULT_RETRY, parseRetryAfter, retryCallback, RETRY_ERROR_CODES, type RetryObserver, type RetryPolicy } from "./retry";
import { Agent, RetryAgent, request } from "./transport";

export interface ClientOptions {
  apiKey: string;
  baseUrl: string;
  /** Per-attempt timeout for headers and body. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Transport to use instead of the client's own pool (tests pass undici's MockAgent). */
  dispatcher?: Dispatcher;
  userAgent?: string;
  onRetry?: RetryObserver["onRetry"];
  /** Allows plain http to a host that is not loopback (the key then crosses the network in clear text). */
  insecure?: boolean;
}

export type Query = Record<string, string | number | boolean | string[] | undefined | null>;

export interface RequestOptions<T = unknown> {
  query?: Query;
  body?: unknown;
  /**
   * `true` gives the call one key, reused by every retry: derived from the operation's identity and
   * the request when the call runs inside an operation (see idempotency.ts), random otherwise.
   */
  idempotencyKey?: string | true;
  /** Confirms that the object a replayed create answered with still exists (its finder). */
  exists?: (created: T) => Promise<boolean>;
  /** This create makes the operation's own object (its id, when not `id`): once it answers, the object exists. */
  own?: true | ((created: T) => string);
  timeoutMs?: number;
  requestId?: string;
  schema?: z.ZodType<T>;
  retry?: Partial<RetryPolicy>;
}

export interface Response<T> {
  data: T;
  status: number;
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
  /** The first response to an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

/** 429s one request may meet before it gives up (each waits its Retry-After). */
const MAX_THROTTLED = 12;

/**
 * Fresh keys tried after replays of objects that are gone, before giving up: one per time the same
 * object was deleted outside Pulumi and made again by `up` (the drift harness does it dozens of times).
 */
const MAX_GENERATIONS = 64;

const DEFAULT_TIMEOUT_MS = 30_000;

export class CloudPlatformClient {
  readonly baseUrl: string;
  readonly keyKind: KeyPrefix;
  readonly #apiKey: string;
  readonly #dispatcher: Dispatcher;
  /** A dispatcher the caller passed in is the caller's to close. */
  readonly #ownsDispatcher: boolean;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #userAgent: string;
  readonly #onRetry?: RetryObserver["onRetry"];
  readonly #limiter: AdaptiveLimiter;

  constructor(opts: ClientOptions) {
    this.keyKind = checkKeyShape(opts.apiKey);
    if (!opts.baseUrl) throw new ConfigurationError("No base URL: set cloudplatform:baseUrl or CLOUDPLATFORM_BASE_URL");
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new ConfigurationError(`cloudplatform:baseUrl is not a URL: '${redactUrlCredentials(opts.baseUrl)}'`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ConfigurationError(`cloudplatform:baseUrl must be http or https, got '${url.protocol}'`);
    }
    if (url.protocol === "http:" && !isLoopbackHost(url.hostname) && !opts.insecure) {
      throw new ConfigurationError(
        `cloudplatform:baseUrl is plain http to ${url.host}, which is not this machine: the API key would cross the network in clear text. ` +
          "Use https, or set the provider's insecure: true (cloudplatform:insecure, CLOUDPLATFORM_INSECURE=true) to allow it",
      );
    }
    this.baseUrl = url.toString().replace(/\/+$/, "");
    this.#apiKey = opts.apiKey;
    this.#dispatcher = opts.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 16 });
    this.#ownsDispatcher = !opts.dispatcher;
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.#userAgent = opts.userAgent ?? "pulumi-cloudplatform";
    this.#onRetry = opts.onRetry;
    this.#limiter = sharedLimiter(this.baseUrl, opts.apiKey);
  }

  /** Keeps the key out of console.log, util.inspect and JSON. */
  toJSON() {
    return { baseUrl: redactUrlCredentials(this.baseUrl), keyKind: this.keyKind };
  }
  [Symbol.for("nodejs.util.inspect.custom")]() {
    return `CloudPlatformClient { baseUrl: '${redactUrlCredentials(this.baseUrl)}', key: '${this.keyKind}***' }`;
  }

  async request<T = unknown>(method: string, path: string, opts: RequestOptions<T> = {}): Promise<Response<T>> {
    if (opts.idempotencyKey !== true) return this.#send(method, path, opts);
    const op = currentOperation();
    if (!op?.identity) return this.#send(method, path, opts);
    // A replay may be of an object deleted since (POST: confirm it, else a fresh key) or of an
    // older change (PUT/PATCH upserts: send again under a fresh key, which is harmless).
    for (let generation = 0; ; generation++) {
      const key = deriveIdempotencyKey(op.identity, method, path + encodeQuery(opts.query), opts.body, generation);
      const res = await this.#send(method, path, { ...opts, idempotencyKey: key });
      if (!res.replayed) return res;
      const post = method.toUpperCase() === "POST";
      if (post && (!opts.exists || (await opts.exists(res.data)))) return res;
      // Each time an object is deleted by hand and made again, one more key replays a gone one.
      if (generation + 1 >= MAX_GENERATIONS) {
        if (post) throw new Error(`${method} ${path}: ${MAX_GENERATIONS} idempotency keys each replayed an object that no longer exists; run again to make it`);
        return res;
      }
    }
  }

  async #send<T>(method: string, path: string, opts: RequestOptions<T>): Promise<Response<T>> {
    const sentAt = Date.now();
    const requestId = opts.requestId ?? `req_${randomUUID().replace(/-/g, "")}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: "application/json",
      "user-agent": this.#userAgent,
      "x-request-id": requestId,
    };
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] = "application/json";
    }
    if (opts.idempotencyKey) {
      headers["idempotency-key"] = opts.idempotencyKey === true ? randomUUID() : opts.idempotencyKey;
    }
    const policy = { ...this.#retry, ...opts.retry };
    // 429s are paced by the shared limiter and retried here, for any method: the platform refused
    // them before acting. Time queued behind the limiter does not count against maxElapsedMs.
    const maxThrottled = policy.maxRetries === 0 ? 0 : Math.max(policy.maxRetries, MAX_THROTTLED);
    for (let throttled = 0; ; throttled++) {
      await this.#limiter.acquire();
      const startedAt = Date.now();
      try {
        const res = await this.#dispatch<T>(method, path, opts, policy, headers, body, requestId, sentAt);
        this.#limiter.succeeded();
        return res;
      } catch (err) {
        if (!(err instanceof RateLimitError) || throttled >= maxThrottled) throw err;
        this.#limiter.throttled();
        const delayMs = err.retryAfterMs ?? backoffMs(throttled + 1, policy);
        if (Date.now() + delayMs - startedAt > policy.maxElapsedMs) throw err;
        this.#onRetry?.({ attempt: throttled + 1, delayMs, status: 429 });
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }

  async #dispatch<T>(
    method: string, path: string, opts: RequestOptions<T>, policy: RetryPolicy,
    headers: Record<string, string>, body: string | undefined, requestId: string, sentAt: number,
  ): Promise<Response<T>> {
    let attempts = 1;
    const dispatcher = new RetryAgent(this.#dispatcher, {
      throwOnError: false,
      maxRetries: policy.maxRetries,
      errorCodes: RETRY_ERROR_CODES,
      retry: retryCallback(policy, Date.now(), {
        onRetry: (info) => {
          attempts = info.attempt + 1;
          this.#onRetry?.(info);
        },
      }),
    });
    const timeout = opts.timeoutMs ?? this.#timeoutMs;
    const url = this.baseUrl + path + encodeQuery(opts.query);

    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
    } catch (err) {
      const e = err as Error & { code?: string; statusCode?: number };
      throw new ConnectionError(method, path, requestId, e.code, redactKeys(e.message || String(err)), attempts);
    }
    const text = await res.body.text();
    const resHeaders = res.headers as Response<T>["headers"];
    const echoed = resHeaders["x-request-id"];
    const rid = (Array.isArray(echoed) ? echoed[0] : echoed) ?? requestId;
    const ctype = String(resHeaders["content-type"] ?? "");
    let data: unknown = text;
    if (text && ctype.includes("json")) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    } else if (!text) {
      data = undefined;
    }

    if (res.statusCode >= 400) {
      throw ApiError.from({
        status: res.statusCode,
        // A proxy or server may echo the Authorization header; errors end up in logs.
        body: redactBody(data),
        requestId: rid,
        method,
        path,
        retryAfterMs: parseRetryAfter(resHeaders["retry-after"]),
      });
    }
    if (opts.schema) {
      const parsed = opts.schema.safeParse(data);
      if (!parsed.success) {
        const issues = parsed.error.issues
          .slice(0, 5)
          .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
          .join("; ");
        throw new ResponseValidationError(`${method} ${path}: unexpected response shape: ${issues} [request id ${rid}]`);
      }
      data = parsed.data;
    }
    return { data: data as T, status: res.statusCode, requestId: rid, headers: resHeaders, replayed: isReplay(method, resHeaders, data, sentAt) };
  }

  async get<T = unknown>(path: string, opts?: RequestOptions<T>): Promise<T> {
    return (await this.request<T>("GET", path, opts)).data;
  }
  /** A create: sent with an Idempotency-Key unless the caller passes `idempotencyKey: undefined`. */
  async create<T = unknown>(path: string, body: unknown, opts: RequestOptions<T> = {}): Promise<T> {
    const data = (await this.request<T>("POST", path, { idempotencyKey: true, ...opts, body })).data;
    const op = currentOperation();
    const id = typeof opts.own === "function" ? opts.own(data) : (data as { id?: unknown } | undefined)?.id;
    if (opts.own && op && !op.created && typeof id === "string") op.created = { id, body: data };
    return data;
  }
  async post<T = unknown>(path: string, body?: unknown, opts: RequestOptions<T> = {}): Promise<T> {
    return (await this.request<T>("POST", path, { ...opts, body })).data;
  }
  async patch<T = unknown>(path: string, body: unknown, opts: RequestOptions<T> = {}): Promise<T> {
    return (await this.request<T>("PATCH", path, { ...opts, body })).data;
  }
  async put<T = unknown>(path: string, body: unknown, opts: RequestOptions<T> = {}): Promise<T> {
    return (await this.request<T>("PUT", path, { ...opts, body })).data;
  }
  async delete(path: string, opts?: RequestOptions): Promise<void> {
    await this.request("DELETE", path, opts);
  }

  /**
   * Walks a cursor-paged list route, yielding items. Tolerates `{data, nextCursor}` (the spec),
   * `next_cursor`, `items`, and a bare array.
   */
  async *paginate<T>(path: string, opts: { query?: Query; item?: z.ZodType<T>; pageSize?: number } = {}): AsyncGenerator<T> {
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const query: Query = { ...opts.query };
      if (cursor) query.cursor = cursor;
      else if (opts.pageSize) query.limit = opts.pageSize;
      const page = await this.get<unknown>(path, { query });
      const { items, next } = readPage(page);
      for (const raw of items) {
        if (!opts.item) {
          yield raw as T;
          continue;
        }
        const parsed = opts.item.safeParse(raw);
        if (!parsed.success) {
          throw new ResponseValidationError(`GET ${path}: unexpected item shape: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`);
        }
        yield parsed.data;
      }
      if (next && seen.has(next)) throw new ResponseValidationError(`GET ${path}: the API returned the same cursor twice`);
      if (next) seen.add(next);
      cursor = next;
    } while (cursor);
  }

  async list<T>(path: string, opts: { query?: Query; item?: z.ZodType<T>; pageSize?: number } = {}): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this.paginate(path, opts)) out.push(item);
    return out;
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}

function readPage(page: unknown): { items: unknown[]; next?: string } {
  if (Array.isArray(page)) return { items: page };
  const p = (page ?? {}) as Record<string, unknown>;
  const items = (Array.isArray(p.data) ? p.data : Array.isArray(p.items) ? p.items : []) as unknown[];
  const next = p.nextCursor ?? p.next_cursor ?? p.cursor;
  return { items, next: typeof next === "string" && next !== "" ? next : undefined };
}

function redactBody(body: unknown): unknown {
  if (typeof body === "string") return redactKeys(body);
  if (body === undefined || body === null || typeof body !== "object") return body;
  return JSON.parse(redactKeys(JSON.stringify(body)));
}

function encodeQuery(query: Query | undefined): string {
  if (!query) return "";
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) v.forEach((x) => sp.append(k, x));
    else sp.append(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : "";
}
