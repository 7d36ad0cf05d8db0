// The real API client over the emulator's route table, in-process: each request goes through the
// route's handler and the models exactly as over HTTP (authentication and scopes included), with
// no socket and no server, so a test can send thousands of requests in a second or two. What the
// HTTP layer adds (idempotent replays, request ids, faults, rate limits) is left out.
import { Dispatcher } from "undici";
import { authenticate, SCOPES } from "../../emulator/auth";
import type { Emu } from "../../emulator/emu";
import { PlatformError } from "../../emulator/errors";
import type { AnyRouteDef } from "../../emulator/http";
import { allRoutes } from "../../emulator/routes";
import { completeUpload } from "../../emulator/models/static-sites";
import { CloudPlatformClient } from "../../provider/client";

/** One answer a route gave: method, path (without the query) and status. */
export interface Answer {
  method: string;
  path: string;
  status: number;
}

/** The route table as matchers, the one with fewer parameters first where two match (as fastify's router prefers). */
const table = allRoutes
  .map((def) => {
    const names: string[] = [];
    const re = new RegExp(`^${def.url.replace(/:(\w+)/g, (_, n: string) => (names.push(n), "([^/]+)"))}$`);
    return { def, re, names };
  })
  .sort((a, b) => a.names.length - b.names.length);

/**
 * Runs the route `method path` answers with, as the server would: its status and JSON body. A
 * static upload's presigned PUT (served beside the route table) takes the raw bytes.
 */
export async function route(emu: Emu, method: string, url: string, headers: Record<string, string>, raw: Buffer): Promise<{ status: number; body?: unknown }> {
  const [path, search = ""] = url.split("?");
  const query: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(search)) query[k] = k in query ? [query[k], v].flat() : v;
  const upload = method === "PUT" ? /^\/_uploads\/([^/]+)$/.exec(path) : null;
  if (upload) {
    try {
      const u = completeUpload(emu, upload[1], { query, headers, body: raw });
      return { status: 200, body: { uploadId: u.id, sizeBytes: u.sizeBytes } };
    } catch (err) {
      if (err instanceof PlatformError) return { status: err.statusCode, body: err.body() };
      throw err;
    }
  }
  const body = raw.length ? JSON.parse(raw.toString("utf8")) : undefined;
  for (const { def, re, names } of table) {
    const m = def.method === method ? re.exec(path) : null;
    if (!m) continue;
    const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    try {
      const out = "public" in def
        ? await (def as Extract<AnyRouteDef, { public: true }>).handler({ params, query, body, headers, emu })
        : await def.handler({ params, query, body, headers, emu, principal: authenticate(emu.store, headers, SCOPES[def.scope], emu.now()) });
      return { status: out.status, body: out.body };
    } catch (err) {
      if (err instanceof PlatformError) return { status: err.statusCode, body: err.body() };
      throw err;
    }
  }
  return { status: 404, body: new PlatformError(404, `Route ${method} ${path} not found`).body() };
}

/** A transport that hands each request to `route` and replays its answer to undici's handler. */
export class RouteDispatcher extends Dispatcher {
  constructor(private readonly emu: Emu, readonly answers: Answer[] = []) {
    super();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const h = handler as Record<string, (...args: unknown[]) => void>;
    const controller = { abort() {}, pause() {}, resume() {}, aborted: false, paused: false };
    const given = opts.headers as string[] | Record<string, string> | undefined;
    const headers: Record<string, string> = Array.isArray(given)
      ? Object.fromEntries(Array.from({ length: given.length / 2 }, (_, i) => [given[2 * i].toLowerCase(), given[2 * i + 1]]))
      : Object.fromEntries(Object.entries(given ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const raw = typeof opts.body === "string" ? Buffer.from(opts.body) : opts.body ? Buffer.from(opts.body as Uint8Array) : Buffer.alloc(0);
    route(this.emu, opts.method, opts.path, headers, raw)
      .then(({ status, body }) => {
        this.answers.push({ method: opts.method, path: opts.path.split("?")[0], status });
        const payload = Buffer.from(body === undefined ? "" : JSON.stringify(body));
        const out: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
        if (h.onResponseStart) {
          h.onRequestStart?.(controller, {});
          h.onResponseStart(controller, status, out, "");
          h.onResponseData?.(controller, payload);
          h.onResponseEnd?.(controller, {});
        } else {
          h.onConnect?.(() => {}, null);
          h.onHeaders?.(status, Object.entries(out).flatMap(([k, v]) => [Buffer.from(k), Buffer.from(v)]), () => {}, "");
          h.onData?.(payload);
          h.onComplete?.([]);
        }
      })
      .catch((err) => (h.onResponseError ? h.onResponseError(controller, err) : h.onError?.(err)));
    return true;
  }

  override async close(): Promise<void> {}
  override async destroy(): Promise<void> {}
}

/** A client of `emu` (with `key`) whose requests run in-process; `answers` lists each one's status. */
export function routeClient(emu: { emu: Emu; apiKey: string; baseUrl: string }, key = emu.apiKey): { client: CloudPlatformClient; answers: Answer[] } {
  const answers: Answer[] = [];
  const client = new CloudPlatformClient({ apiKey: key, baseUrl: emu.baseUrl, dispatcher: new RouteDispatcher(emu.emu, answers), retry: { maxRetries: 0 } });
  return { client, answers };
}
