// The gate: one place decides whether a request may reach its route, from the route the router
// matched (its pattern, and the surface that pattern belongs to), never from the URL as sent. The
// browser is hostile: a page the developer has open can send requests to the emulator, and a
// DNS-rebinding page can read the answers. Before routing, the request target is put in its one
// canonical spelling or refused (400). Then, before any route runs:
//   - its Host must be a name the emulator is reached by (loopback, an IP address, the bound
//     host, `--allowed-host`): a rebinding page's requests carry the attacker's host name;
//   - the surface's rules in SURFACES: from the emulator's own origin only, changes as JSON only
//     (a page cannot send JSON elsewhere without a CORS preflight, which the emulator never grants),
//     and the control token when the emulator has one.
// A route registered on no surface stops the emulator from starting.
import type { FastifyInstance, FastifyReply, FastifyRequest, RawRequestDefaultExpression } from "fastify";
import { isIP } from "node:net";
import type { Emu } from "./emu";
import { PlatformError } from "./errors";
import { GRAPHQL_PATH, graphqlRefusal } from "./graphql";
import { type ControlToken, controlTokenRoutes, SIGN_IN_PAGE } from "./control-token";
import { uiAsset, vendorAsset } from "./dashboard/assets";

export interface GuardOptions {
  /** Host names accepted besides loopback names and IP addresses (`--allowed-host`). */
  allowedHosts?: string[];
  /** The address or name the emulator listens on: accepted as a Host. */
  boundHost?: string;
  /** With a token, the control API and the dashboard's JSON need it. */
  token?: ControlToken;
}

export type SurfaceName =
  | "api" | "graphql" | "s3" | "upload" | "export" | "site"
  | "probe" | "control" | "dashboard" | "dashboard-api" | "dashboard-session";

export interface Surface {
  name: SurfaceName;
  /**
   * The emulator's own (control API, dashboard, probes: no API key, no rate limit, and answers no
   * other page may frame), or the platform's.
   */
  plane: "emulator" | "platform";
  /** The route patterns it holds: these exactly, or every pattern under a prefix. */
  exact?: readonly string[];
  prefix?: string;
  /** Requests from another site (Sec-Fetch-Site, Origin) refused: for every method, or for changes only. */
  sameOrigin: "always" | "changes" | "never";
  /** A change (any method but GET, HEAD and OPTIONS) must be application/json. */
  json: boolean;
  /** With --control-token: needed, not needed, or needed but for the dashboard's static files by name. */
  token: "required" | "none" | "files";
}

/**
 * Every surface and what it requires besides a known Host; the first whose patterns hold a route
 * is the route's. The API-like surfaces carry their own credentials (API keys, SigV4, signed URLs).
 */
export const SURFACES: readonly Surface[] = [
  // Container health checks: they tell nothing of the state.
  { name: "probe", plane: "emulator", exact: ["/_emulator/health", "/_emulator/ready"], sameOrigin: "always", json: true, token: "none" },
  { name: "dashboard-session", plane: "emulator", exact: ["/_emulator/ui/sign-in", "/_emulator/ui/sign-out"], sameOrigin: "always", json: true, token: "none" },
  { name: "dashboard-api", plane: "emulator", prefix: "/_emulator/ui/api/", sameOrigin: "always", json: true, token: "required" },
  // The page and its files hold no data: a link from another site may open it; it asks for the token itself.
  {
    name: "dashboard", plane: "emulator", exact: ["/_emulator/ui", "/_emulator/ui/", "/_emulator/ui/:file", "/_emulator/ui/vendor/lit-html/*"],
    sameOrigin: "changes", json: true, token: "files",
  },
  // Anything else under /_emulator is the control API, whoever registers it.
  { name: "control", plane: "emulator", prefix: "/_emulator/", sameOrigin: "always", json: true, token: "required" },
  { name: "api", plane: "platform", prefix: "/v1/", sameOrigin: "never", json: false, token: "none" },
  { name: "graphql", plane: "platform", exact: [GRAPHQL_PATH], sameOrigin: "never", json: false, token: "none" },
  { name: "s3", plane: "platform", prefix: "/_storage/", sameOrigin: "never", json: false, token: "none" },
  { name: "upload", plane: "platform", prefix: "/_uploads/", sameOrigin: "never", json: false, token: "none" },
  { name: "export", plane: "platform", prefix: "/_exports/", sameOrigin: "never", json: false, token: "none" },
  { name: "site", plane: "platform", prefix: "/_sites/", sameOrigin: "never", json: false, token: "none" },
];

/** The surface a route pattern belongs to, or undefined for a pattern on none. */
export function surfaceOfPattern(pattern: string): Surface | undefined {
  return SURFACES.find((s) => s.exact?.includes(pattern) || (s.prefix !== undefined && pattern.startsWith(s.prefix)));
}

/** The surface of the route the router matched for this request; undefined when it matched none (a 404). */
export function surfaceOf(req: FastifyRequest): Surface | undefined {
  const pattern = req.routeOptions.url;
  return pattern === undefined ? undefined : surfaceOfPattern(pattern);
}

export interface RegisteredRoute {
  method: string;
  url: string;
  surface: SurfaceName;
}

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route the router holds, with its surface, as registered (HEAD routes made for GETs included). */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

// ---- the request target, before routing ----

const refusedTargets = new WeakMap<object, string>();
const HEX = /^[0-9A-Fa-f]{2}$/;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The one spelling of a request target the router and every later step see, or why it is refused:
 * the absolute form (`http://host/path`) becomes its path when its host is the Host header's;
 * percent-encoded letters, digits and `-._~` are decoded (RFC 3986 §6.2.2.2) and other escapes
 * upper-cased, so nothing is decoded twice (an encoded `/` stays `%2F`: the router matches it as part
 * of one segment, as a suppression's address may hold one); an encoded control character, a
 * malformed escape, a fragment or any other form is refused.
 */
export function canonicalTarget(target: string, host: string | undefined): { url: string } | { refused: string } {
  let url = target;
  if (!url.startsWith("/")) {
    const m = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(url);
    if (!m) return { refused: "the request target must be a path such as /v1/me" };
    const [, , authority, rest] = m;
    if (host === undefined || authority.toLowerCase() !== host.toLowerCase()) {
      return { refused: `the request target's host (${authority}) is not the Host header's (${host ?? "none"})` };
    }
    url = rest.startsWith("/") ? rest : `/${rest}`;
  }
  if (url.includes("#")) return { refused: "the request target holds a fragment (#), which is never sent to a server" };
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.includes("%")) return { url };
  let out = "";
  for (let i = 0; i < path.length; i++) {
    if (path[i] !== "%") {
      out += path[i];
      continue;
    }
    const hex = path.slice(i + 1, i + 3);
    if (!HEX.test(hex)) return { refused: `the path holds a malformed percent-escape at '${path.slice(i, i + 3)}'` };
    const code = parseInt(hex, 16);
    if (code < 0x20 || code === 0x7f) return { refused: `the path holds an encoded control character (%${hex.toUpperCase()})` };
    const ch = String.fromCharCode(code);
    out += UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
    i += 2;
  }
  return { url: q < 0 ? out : out + url.slice(q) };
}

/** Fastify's rewriteUrl: the canonical target, or the target unchanged and marked refused for the gate. */
export function rewriteTarget(req: RawRequestDefaultExpression): string {
  const url = req.url ?? "/";
  const host = typeof req.headers.host === "string" ? req.headers.host : undefined;
  const t = canonicalTarget(url, host);
  if ("refused" in t) {
    refusedTargets.set(req, t.refused);
    return url;
  }
  return t.url;
}

// ---- Host ----

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

// ---- other sites ----

const READS = new Set(["GET", "HEAD", "OPTIONS"]);
const mediaType = (v: string | undefined) => (v ?? "").split(";")[0].trim().toLowerCase();

/** Why a request from another site is refused, or undefined when it comes from the emulator's own origin or a tool. */
export function otherSiteProblem(headers: FastifyRequest["headers"]): PlatformError | undefined {
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

/** Why a control request that changes something is refused for its media type, or undefined when it is JSON. */
export function contentTypeProblem(headers: FastifyRequest["headers"]): PlatformError | undefined {
  if (mediaType(headers["content-type"]) === "application/json") return undefined;
  return new PlatformError(415, "content-type: a control request that changes something must be sent as application/json (a web page cannot send that to another site without asking first)");
}

// ---- the dashboard's files ----

/** Whether the route serves one of the dashboard's static files, named exactly (no data in them). */
function isDashboardFile(req: FastifyRequest): boolean {
  const params = req.params as Record<string, string | undefined>;
  try {
    switch (req.routeOptions.url) {
      case "/_emulator/ui":
      case "/_emulator/ui/":
        return true;
      case "/_emulator/ui/:file":
        return uiAsset(params.file ?? "") !== null;
      case "/_emulator/ui/vendor/lit-html/*":
        return vendorAsset(params["*"] ?? "") !== null;
      default:
        return false;
    }
  } catch {
    return false;
  }
}

// ---- the gate ----

function refuse(reply: FastifyReply, surface: Surface | undefined, err: PlatformError): FastifyReply {
  // GraphQL answers every failure with HTTP 200 and a code (conventions §7.2).
  if (surface?.name === "graphql") return reply.code(200).send(graphqlRefusal(err));
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.statusCode).header("cache-control", "no-store").send(err.body());
}

/** Adds the gate: the route table's check, and the first onRequest hook (a refused request costs no rate-limit token and meets no fault). */
export function installGuard(app: FastifyInstance, emu: Emu, opts: GuardOptions = {}): void {
  const allowed = new Set((opts.allowedHosts ?? []).map(checkAllowedHost));
  if (opts.boundHost) allowed.add(opts.boundHost.toLowerCase().replace(/^\[|\]$/g, ""));
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook("onRoute", (route) => {
    const surface = surfaceOfPattern(route.url);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!surface) throw new Error(`route ${methods.join(",")} ${route.url} is on no surface of the gate (emulator/guard.ts SURFACES): say what it requires before it is served`);
    for (const method of methods) routes.push({ method, url: route.url, surface: surface.name });
  });
  app.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
    const surface = surfaceOf(req);
    // Framing refused (the dashboard's pages also say frame-ancestors 'none').
    if (surface?.plane === "emulator") reply.header("x-frame-options", "DENY");
    const badTarget = refusedTargets.get(req.raw);
    if (badTarget !== undefined) {
      emu.count(`${req.method} refused target`, 400);
      return refuse(reply, surface, new PlatformError(400, `request target: ${badTarget}`));
    }
    const host = req.headers.host;
    if (!hostAllowed(host, allowed)) {
      const name = hostName(host ?? "") ?? host;
      emu.count(`${req.method} refused host`, 403);
      return refuse(reply, surface, new PlatformError(403,
        `host: the emulator does not answer to '${name}' (a page reaching it through a DNS name it does not know is refused); ` +
        `reach it as localhost or 127.0.0.1, or start it with --allowed-host ${name} (allowedHost in-process) to accept that name`));
    }
    // No route matched: the not-found handler answers, and nothing runs.
    if (!surface) return;
    const reading = READS.has(req.method);
    const problem = (!reading && surface.json ? contentTypeProblem(req.headers) : undefined) ??
      (surface.sameOrigin === "always" || (surface.sameOrigin === "changes" && !reading) ? otherSiteProblem(req.headers) : undefined);
    if (problem) return refuse(reply, surface, problem);
    const token = opts.token;
    if (!token || surface.token === "none" || token.holds(req)) return;
    if (surface.token === "files" && reading && isDashboardFile(req)) {
      // The page itself sends a visitor without the cookie to sign in.
      if (req.routeOptions.url === "/_emulator/ui/") return reply.redirect(SIGN_IN_PAGE, 303);
      return;
    }
    return token.refuse(reply);
  });
  if (opts.token) controlTokenRoutes(app, opts.token);
}
