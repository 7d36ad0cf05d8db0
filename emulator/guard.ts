// The browser is hostile: a page the developer has open can send requests to the emulator, and a
// DNS-rebinding page can read the answers. Every request is checked before its route runs:
//   - its Host must be a name the emulator is reached by (loopback, an IP address, the bound
//     host, `--allowed-host`): a rebinding page's requests carry the attacker's host name;
//   - a state-changing control or dashboard request (anything under /_emulator but GET and HEAD)
//     must be JSON and come from the emulator's own origin: a page cannot send JSON elsewhere
//     without a CORS preflight, which the emulator never grants;
//   - with a control token, /_emulator needs it (control-token.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isIP } from "node:net";
import type { Emu } from "./emu";
import { PlatformError } from "./errors";
import { GRAPHQL_PATH, graphqlRefusal } from "./graphql";
import { type ControlToken, controlTokenRoutes } from "./control-token";

export interface GuardOptions {
  /** Host names accepted besides loopback names and IP addresses (`--allowed-host`). */
  allowedHosts?: string[];
  /** The address or name the emulator listens on: accepted as a Host. */
  boundHost?: string;
  /** With a token, the control API and the dashboard's JSON need it. */
  token?: ControlToken;
}

export const CONTROL_PREFIX = "/_emulator";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** A Host header: a name or an IPv4 address, or an IPv6 address in brackets, then an optional port. */
const HOST_HEADER = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+(?:%25[a-z0-9._~-]+)?\])(?::\d{1,5})?$/i;

/** The name part of a Host header, lower case, without a trailing dot or brackets; undefined when malformed. */
export function hostName(header: string): string | undefined {
  if (!HOST_HEADER.test(header)) return undefined;
  const name = header.startsWith("[") ? header.slice(1, header.indexOf("]")) : header.replace(/:\d+$/, "");
  return name.toLowerCase().replace(/\.$/, "");
}

/**
 * Loopback names, `*.localhost` (browsers resolve them to loopback) and IP addresses are always
 * accepted: a rebinding page's requests carry a DNS name the attacker controls, never an address.
 */
export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  // No Host header: an HTTP/1.0 tool, never a browser.
  if (header === undefined) return true;
  const name = hostName(header);
  if (name === undefined) return false;
  return isIP(name.replace(/%.*$/, "")) !== 0 || name === "localhost" || name.endsWith(".localhost") || allowed.has(name);
}

/** The names `--allowed-host` takes: host names or addresses, without a scheme or port. */
export function checkAllowedHost(name: string): string {
  const n = name.trim().toLowerCase().replace(/\.$/, "");
  if (!/^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/.test(n) && isIP(n.replace(/^\[|\]$/g, "")) === 0) {
    throw new Error(`--allowed-host must be a host name such as 'emulator' or 'dev.example.test' (no scheme, port or path), got '${name}'`);
  }
  return n.replace(/^\[|\]$/g, "");
}

const mediaType = (v: string | undefined) => (v ?? "").split(";")[0].trim().toLowerCase();

/** Why a state-changing control request is refused, or undefined when it may run. */
export function crossSiteProblem(headers: FastifyRequest["headers"]): PlatformError | undefined {
  if (mediaType(headers["content-type"]) !== "application/json") {
    return new PlatformError(415, "content-type: a control request that changes something must be sent as application/json (a web page cannot send that to another site without asking first)");
  }
  const site = headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    return new PlatformError(403, `sec-fetch-site: the request came from another site (${String(site)}); control requests are taken from the emulator's own pages and from tools only`);
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    let from: string | undefined;
    try {
      from = new URL(origin).host.toLowerCase();
    } catch {
      from = undefined;
    }
    if (from === undefined || from !== (headers.host ?? "").toLowerCase()) {
      return new PlatformError(403, `origin: ${origin} is another site; control requests are taken from the emulator's own pages and from tools only`);
    }
  }
  return undefined;
}

function refuse(req: FastifyRequest, reply: FastifyReply, err: PlatformError): FastifyReply {
  // GraphQL answers every failure with HTTP 200 and a code (conventions §7.2).
  if (req.url.split("?")[0] === GRAPHQL_PATH) return reply.code(200).send(graphqlRefusal(err));
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.statusCode).send(err.body());
}

/** Adds the checks as the first onRequest hook: a refused request costs no rate-limit token and meets no fault. */
export function installGuard(app: FastifyInstance, emu: Emu, opts: GuardOptions = {}): void {
  const allowed = new Set((opts.allowedHosts ?? []).map(checkAllowedHost));
  if (opts.boundHost) allowed.add(opts.boundHost.toLowerCase().replace(/^\[|\]$/g, ""));
  app.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
    const host = req.headers.host;
    if (!hostAllowed(host, allowed)) {
      const name = hostName(host ?? "") ?? host;
      emu.count(`${req.method} refused host`, 403);
      return refuse(req, reply, new PlatformError(403,
        `host: the emulator does not answer to '${name}' (a page reaching it through a DNS name it does not know is refused); ` +
        `reach it as localhost or 127.0.0.1, or start it with --allowed-host ${name} (allowedHost in-process) to accept that name`));
    }
    const path = req.url.split("?")[0];
    if (path !== CONTROL_PREFIX && !path.startsWith(`${CONTROL_PREFIX}/`)) return;
    if (!SAFE_METHODS.has(req.method)) {
      const problem = crossSiteProblem(req.headers);
      if (problem) return refuse(req, reply, problem);
    }
    const denied = opts.token?.check(req, path);
    if (denied) return denied(reply);
  });
  if (opts.token) controlTokenRoutes(app, opts.token);
}
