// The parts of undici the client uses, each from its own module. undici's index also loads fetch,
// WebSocket, the HTTP caches, the mocks and cookies (which load Node's own copy of undici): about
// 9 MB and 90 ms of CPU in every provider process, which starts once per Pulumi operation
// (test/client/transport.test.ts). An undici laid out otherwise is loaded whole, through its index.
import type { Dispatcher, Agent as UndiciAgent, RetryAgent as UndiciRetryAgent } from "undici";

interface Parts {
  Agent: typeof UndiciAgent;
  RetryAgent: typeof UndiciRetryAgent;
  /** undici's request API, called with the dispatcher as `this` (the index's `request` does the same). */
  apiRequest: (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  getGlobalDispatcher: () => Dispatcher;
}

function load(): Parts & { whole: boolean } {
  try {
    return {
      Agent: require("undici/lib/dispatcher/agent"),
      RetryAgent: require("undici/lib/dispatcher/retry-agent"),
      apiRequest: require("undici/lib/api/api-request"),
      getGlobalDispatcher: require("undici/lib/global").getGlobalDispatcher,
      whole: false,
    };
  } catch (err) {
    // Only a missing file means another layout; anything else is undici's own error.
    if ((err as { code?: string }).code !== "MODULE_NOT_FOUND") throw err;
    const u = require("undici") as typeof import("undici");
    return {
      Agent: u.Agent,
      RetryAgent: u.RetryAgent,
      apiRequest: function (this: Dispatcher, opts: Dispatcher.RequestOptions) { return this.request(opts); },
      getGlobalDispatcher: u.getGlobalDispatcher,
      whole: true,
    };
  }
}

const parts = load();
export const Agent = parts.Agent;
export const RetryAgent = parts.RetryAgent;
/** Whether undici was loaded through its index (another layout than the one this was written for). */
export const loadedWhole = parts.whole;

export type RequestOptions = Omit<Dispatcher.RequestOptions, "origin" | "path"> & { dispatcher?: Dispatcher };

/** One request to an absolute URL, through `dispatcher` (undici's global one when none is given). */
export function request(url: string, opts: RequestOptions): Promise<Dispatcher.ResponseData> {
  const u = new URL(url);
  const { dispatcher, ...rest } = opts;
  return parts.apiRequest.call(dispatcher ?? parts.getGlobalDispatcher(), { ...rest, origin: u.origin, path: `${u.pathname}${u.search}` });
}
