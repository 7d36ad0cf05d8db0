// The dashboard's URL table, behind the gate (guard.ts: the surfaces dashboard and dashboard-api):
// the page at /_emulator/ui/ and the read-only JSON it polls under /_emulator/ui/api/, each
// answered by a view over the models.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Emu } from "../emu";
import { PlatformError } from "../errors";
import { parse } from "../http";
import { type Asset, uiAsset, vendorAsset } from "./assets";
import { cronRunPage, deployPage, environmentPage, projectPage, projectsOfWorkspace, servicePage } from "./infra";
import { dnsOfWorkspace, emailPage, mailOfWorkspace, zonePage } from "./network";
import { bucketPage, domainsOfWorkspace, objectDownload, sitePage, sitesOfWorkspace, storageOfWorkspace } from "./storage";
import { summary, workspacePage } from "./summary";

export const DASHBOARD_PREFIX = "/_emulator/ui";
const API = `${DASHBOARD_PREFIX}/api`;

type Params = Record<string, string>;
type View = (emu: Emu, params: Params, query: Record<string, unknown>) => unknown;

const requestsQuery = z.object({
  after: z.coerce.number().int("must be an integer").min(0, "must be 0 or more").optional(),
  limit: z.coerce.number().int("must be an integer").min(1, "must be at least 1").max(1_000, "must be at most 1000").optional(),
});

const VIEWS: [string, View][] = [
  ["/summary", (emu) => summary(emu)],
  ["/workspaces/:id", (emu, p) => workspacePage(emu, p.id)],
  ["/workspaces/:id/projects", (emu, p) => projectsOfWorkspace(emu, p.id)],
  ["/workspaces/:id/dns", (emu, p) => dnsOfWorkspace(emu, p.id)],
  ["/workspaces/:id/mail", (emu, p) => mailOfWorkspace(emu, p.id)],
  ["/workspaces/:id/storage", (emu, p) => storageOfWorkspace(emu, p.id)],
  ["/workspaces/:id/domains", (emu, p) => domainsOfWorkspace(emu, p.id)],
  ["/workspaces/:id/sites", (emu, p) => sitesOfWorkspace(emu, p.id)],
  ["/projects/:id", (emu, p) => projectPage(emu, p.id)],
  ["/environments/:id", (emu, p) => environmentPage(emu, p.id)],
  ["/services/:id", (emu, p) => servicePage(emu, p.id)],
  ["/deploys/:id", (emu, p) => deployPage(emu, p.id)],
  ["/cron-runs/:id", (emu, p) => cronRunPage(emu, p.id)],
  ["/zones/:id", (emu, p) => zonePage(emu, p.id)],
  ["/emails/:id", (emu, p) => emailPage(emu, p.id)],
  ["/buckets/:id", (emu, p, q) => bucketPage(emu, p.id, q)],
  ["/sites/:id", (emu, p) => sitePage(emu, p.id)],
  ["/requests", (emu, _p, q) => {
    const { after = 0, limit = 1_000 } = parse(requestsQuery, q, "query");
    return { last: emu.requests.last, entries: emu.requests.since(after, limit) };
  }],
];

/**
 * The page may load only its own files and frames (sites, email previews): defence in depth for
 * user data. No page may frame it (a framed dashboard invites clickjacking); the gate adds
 * X-Frame-Options for browsers that ignore frame-ancestors.
 */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; " +
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

function fail(reply: FastifyReply, err: unknown, emu?: Emu): FastifyReply {
  if (!(err instanceof PlatformError)) emu?.log({ kind: "error", msg: `dashboard: ${(err as Error).stack ?? String(err)}` });
  const e = err instanceof PlatformError ? err : new PlatformError(500, (err as Error).message);
  return reply.code(e.statusCode).header("cache-control", "no-store").send(e.body());
}

function sendAsset(reply: FastifyReply, asset: Asset | null, what: string): FastifyReply {
  if (!asset) return fail(reply, new PlatformError(404, `Dashboard file ${what} not found`));
  return reply.headers({ ...PAGE_HEADERS, "cache-control": "no-cache" }).type(asset.contentType).send(asset.body);
}

export function dashboardRoutes(app: FastifyInstance, emu: Emu): void {
  /** A GET route whose failures answer with the platform's error body. */
  const get = (url: string, answer: (req: FastifyRequest, reply: FastifyReply, params: Params) => FastifyReply) =>
    app.get(url, async (req, reply) => {
      try {
        return answer(req, reply, req.params as Params);
      } catch (err) {
        return fail(reply, err, emu);
      }
    });

  app.get(DASHBOARD_PREFIX, (_req, reply) => reply.redirect(`${DASHBOARD_PREFIX}/`));
  get(`${DASHBOARD_PREFIX}/`, (_req, reply) => sendAsset(reply, uiAsset("index.html"), "index.html"));
  get(`${DASHBOARD_PREFIX}/:file`, (_req, reply, p) => sendAsset(reply, uiAsset(p.file), p.file));
  get(`${DASHBOARD_PREFIX}/vendor/lit-html/*`, (_req, reply, p) => sendAsset(reply, vendorAsset(p["*"]), `vendor/lit-html/${p["*"]}`));

  for (const [url, view] of VIEWS) {
    get(`${API}${url}`, (req, reply, p) => reply.header("cache-control", "no-store").send(view(emu, p, req.query as Record<string, unknown>)));
  }

  // Served as a download in a sandbox, never rendered on the dashboard's origin.
  get(`${API}/buckets/:id/object`, (req, reply, p) => {
    const o = objectDownload(emu, p.id, (req.query as Record<string, unknown>).key);
    const name = o.key.split("/").pop() || "object";
    return reply
      .headers({
        "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
        "content-security-policy": "sandbox",
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
        "content-length": String(o.size),
      })
      .type(o.contentType)
      .send(o.body);
  });
}
