// Static uploads, sites and static deploys (infrastructure routes §2.6, §4.9). An upload is reserved,
// then its bytes are PUT to a presigned URL the emulator serves itself; publishing it makes a STATIC
// service whose first deploy carries the content, and a static deploy replaces the content in place.
// The content of the deploy that is live is served under /_sites/{host label}/ (routes/public/).
import { randomBytes } from "node:crypto";
import { unzipSync } from "fflate";
import { z } from "zod";
import type { Principal, Workspace } from "../auth";
import type { Emu } from "../emu";
import { badRequest, conflict, forbidden, notFound, PlatformError } from "../errors";
import { baseUrlOf } from "../loopback";
import { deployStatus, deploysOf, type Deploy, queueDeploy } from "./deploys";
import { slug } from "./lifecycle";
import { createEnvironment, createProject, type Environment, environmentsOf, getEnvironment, type Project } from "./projects";
import { newId } from "../store";
import { createService, requireNotSuspended, type Service, services } from "./services";

// ---- rows ----
export interface StaticUpload {
  id: string;
  workspaceId: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  /** The `signature` query parameter of the presigned URL. */
  signature: string;
  /** The `x-upload-signature` header the upload must carry. */
  headerToken: string;
  createdAtMs: number;
  expiresAtMs: number;
  status: "RESERVED" | "UPLOADED" | "PUBLISHED";
  /** Files by relative path, base64; dropped once published (the content row holds them). */
  files: Record<string, string> | null;
  publishedTo: string | null;
}

/** The content a deploy serves. Deploys without their own (a redeploy) serve the newest older one. */
export interface StaticContent {
  id: string;
  serviceId: string;
  deploySeq: number;
  uploadId: string;
  indexPath: string;
  spaFallback: boolean;
  files: Record<string, string>;
}

const uploads = (emu: Emu) => emu.store.table<StaticUpload>("staticUploads");
const contents = (emu: Emu) => emu.store.table<StaticContent>("staticContent");

export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
export const UPLOAD_TTL_SECONDS = 900;
export const STATIC_SITES_PROJECT = "static-sites";
export const STATIC_SITES_ENVIRONMENT = "production";
export const maxBytes = (emu: Emu) => emu.settings.staticUploadMaxBytes ?? DEFAULT_MAX_BYTES;

// ---- request bodies ----
const PATH_RULE = /^[A-Za-z0-9_.~@+\-/ ]{1,255}$/;
const indexPath = z.string().regex(PATH_RULE, "must be a relative file path such as 'index.html' (1 to 255 characters)")
  .refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), "must be relative to the site root, without '..'")
  .refine((p) => /\.html?$/i.test(p), "must name an .html page (the page served at '/')");

export const reserveUploadBody = z.object({
  filename: z.string().min(1, "is required").max(255, "must be at most 255 characters")
    .refine((f) => /\.(zip|html)$/i.test(f), "must end in .zip or .html"),
  contentType: z.string().min(1, "is required").max(255, "must be at most 255 characters"),
  sizeBytes: z.number().int("must be an integer number of bytes").positive("must be a positive number of bytes"),
});
export const publishSiteBody = z.object({
  uploadId: z.uuid("must be a uuid"),
  environmentId: z.uuid("must be a uuid").optional(),
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, "must be 1 to 64 characters: letters, digits, spaces, '.', '_' or '-', starting with a letter or digit").optional(),
  indexPath: indexPath.optional(),
  spaFallback: z.boolean().optional(),
});
export const staticDeployBody = z.object({
  uploadId: z.uuid("must be a uuid"),
  indexPath: indexPath.optional(),
  spaFallback: z.boolean().optional(),
});

// ---- reserve ----
/** The workspace an upload belongs to: the key's own, else the first its owner belongs to. */
function homeWorkspace(emu: Emu, who: Principal): Workspace {
  const id = who.key.workspaceId ?? who.memberships()[0]?.workspaceId;
  const ws = id ? emu.store.table<Workspace>("workspaces").get(id) : undefined;
  if (!ws) throw forbidden("The key reaches no workspace to upload into");
  return ws;
}

export function reserveUpload(emu: Emu, who: Principal, body: z.infer<typeof reserveUploadBody>) {
  const max = maxBytes(emu);
  if (body.sizeBytes > max) throw badRequest(`sizeBytes: must be at most ${max} bytes (${formatBytes(max)}); got ${body.sizeBytes}`);
  const ws = homeWorkspace(emu, who);
  purgeExpired(emu);
  const now = emu.clock.now();
  const upload = uploads(emu).insert({
    id: newId(),
    workspaceId: ws.id,
    filename: body.filename,
    contentType: body.contentType,
    sizeBytes: body.sizeBytes,
    signature: randomBytes(16).toString("hex"),
    headerToken: randomBytes(16).toString("hex"),
    createdAtMs: now,
    expiresAtMs: now + UPLOAD_TTL_SECONDS * 1000,
    status: "RESERVED",
    files: null,
    publishedTo: null,
  });
  return uploadView(emu, upload);
}

export function uploadView(emu: Emu, u: StaticUpload) {
  const base = baseUrlOf(emu);
  const expires = Math.floor(u.expiresAtMs / 1000);
  return {
    uploadId: u.id,
    url: `${base}/_uploads/${u.id}?expires=${expires}&signature=${u.signature}`,
    method: "PUT",
    headers: [
      { name: "Content-Type", value: u.contentType },
      { name: "x-upload-signature", value: u.headerToken },
    ],
    maxBytes: maxBytes(emu),
    expiresInSeconds: Math.max(0, Math.round((u.expiresAtMs - emu.clock.now()) / 1000)),
  };
}

/** Uploads never published are forgotten once their URL expires, whether or not the bytes came. */
function purgeExpired(emu: Emu): void {
  const now = emu.clock.now();
  for (const u of uploads(emu).where((x) => x.status !== "PUBLISHED" && x.expiresAtMs <= now)) uploads(emu).delete(u.id);
}

// ---- complete (the presigned PUT) ----
export interface UploadRequest {
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Accepts the bytes of a reserved upload: signature, expiry, single use, size and file type are checked. */
export function completeUpload(emu: Emu, uploadId: string, req: UploadRequest): StaticUpload {
  const u = uploads(emu).get(uploadId);
  if (!u) throw notFound("Upload", uploadId);
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  if (req.query.signature !== u.signature || String(req.query.expires) !== String(Math.floor(u.expiresAtMs / 1000))) {
    throw forbidden("The upload URL's signature does not match; use the url exactly as POST /v1/static-uploads returned it");
  }
  if (header("x-upload-signature") !== u.headerToken) {
    throw forbidden("Header x-upload-signature is missing or wrong; send every header POST /v1/static-uploads returned");
  }
  const type = (header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== u.contentType.split(";")[0].trim().toLowerCase()) {
    throw forbidden(`Content-Type must be '${u.contentType}', as reserved; got '${type || "(none)"}'`);
  }
  if (u.status !== "RESERVED") throw conflict(`Upload ${u.id} was already used; reserve a new upload for new content`);
  if (emu.clock.now() >= u.expiresAtMs) {
    throw new PlatformError(410, `The upload URL expired at ${new Date(u.expiresAtMs).toISOString()}; reserve a new upload`);
  }
  if (req.body.length > maxBytes(emu)) throw new PlatformError(413, `The body is larger than maxBytes (${maxBytes(emu)} bytes)`);
  if (req.body.length !== u.sizeBytes) {
    throw badRequest(`The body is ${req.body.length} bytes but ${u.sizeBytes} were reserved (sizeBytes); reserve the exact size`);
  }
  const files = /\.zip$/i.test(u.filename) ? readZip(req.body) : { "index.html": readHtml(req.body) };
  return uploads(emu).update(u.id, { status: "UPLOADED", files });
}

function readZip(bytes: Buffer): Record<string, string> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(new Uint8Array(bytes));
  } catch (err) {
    throw badRequest(`The .zip upload is not a readable zip archive (${(err as Error).message})`);
  }
  const files: Record<string, string> = {};
  for (const [name, data] of Object.entries(entries)) {
    if (name.endsWith("/")) continue;
    const rel = name.replace(/^\.?\/+/, "");
    if (rel.split("/").includes("..")) throw badRequest(`The zip archive holds '${name}', which points outside the site`);
    files[rel] = Buffer.from(data).toString("base64");
  }
  if (!Object.keys(files).length) throw badRequest("The zip archive holds no files");
  return files;
}

function readHtml(bytes: Buffer): string {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    if (text.includes("\u0000")) throw new Error("NUL byte");
  } catch {
    throw badRequest("The .html upload is not UTF-8 text");
  }
  return bytes.toString("base64");
}

// ---- publish ----
function visibleUpload(emu: Emu, who: Principal, uploadId: string): StaticUpload {
  const u = uploads(emu).get(uploadId);
  if (!u || !who.canSee(u.workspaceId)) throw notFound("Upload", uploadId);
  return u;
}

function checkUsable(u: StaticUpload, workspaceId: string): void {
  if (u.workspaceId !== workspaceId) throw badRequest(`uploadId: upload ${u.id} belongs to another workspace than the site`);
  if (u.status === "PUBLISHED") throw conflict(`uploadId: upload ${u.id} was already published (to service ${u.publishedTo}); an upload is published once`);
  if (u.status === "RESERVED") throw conflict(`uploadId: upload ${u.id} has not been uploaded; PUT the file to its url first`);
}

/** The workspace's static-sites project and its production environment, made on first use. */
function defaultEnvironment(emu: Emu, ws: Workspace): { env: Environment; project: Project } {
  const project = emu.store.table<Project>("projects").find((p) => p.workspaceId === ws.id && p.name === STATIC_SITES_PROJECT)
    ?? createProject(emu, ws, { name: STATIC_SITES_PROJECT, description: "Static sites published without an environment" });
  const env = environmentsOf(emu, project.id).find((e) => e.name.toLowerCase() === STATIC_SITES_ENVIRONMENT)
    ?? createEnvironment(emu, project, { name: STATIC_SITES_ENVIRONMENT });
  return { env, project };
}

/** Publishes an uploaded artifact as a new STATIC service with its first deploy. */
export function publishSite(emu: Emu, who: Principal, body: z.infer<typeof publishSiteBody>): { site: Service; deploy: Deploy } {
  const upload = visibleUpload(emu, who, body.uploadId);
  const { env, project } = body.environmentId
    ? getEnvironment(emu, who, body.environmentId)
    : defaultEnvironment(emu, emu.store.table<Workspace>("workspaces").get(upload.workspaceId)!);
  checkUsable(upload, project.workspaceId);
  const name = body.name ?? (slug(upload.filename.replace(/\.(zip|html)$/i, "")).slice(0, 64) || "site");
  const site = createService(emu, env, project, {
    name, type: "STATIC", staticUploadId: upload.id, staticIndexPath: body.indexPath, staticSpa: body.spaFallback ?? false,
    // A fixed host label, so renaming the site keeps its URL.
    subdomain: `${slug(name).slice(0, 40)}-${randomBytes(3).toString("hex")}`,
  });
  const deploy = deploysOf(emu, site.id)[0];
  attachContent(emu, upload, site, deploy, body.indexPath ?? "index.html", body.spaFallback ?? false);
  return { site, deploy };
}

/** Replaces a STATIC service's content in place; omitted settings keep their current values. */
export function deploySite(emu: Emu, who: Principal, site: Service, body: z.infer<typeof staticDeployBody>): Deploy {
  if (site.type !== "STATIC") {
    throw badRequest(`serviceId: static deploys are for STATIC services; service ${site.id} is ${site.type}`);
  }
  const upload = visibleUpload(emu, who, body.uploadId);
  checkUsable(upload, site.workspaceId);
  requireNotSuspended(site);
  const current = currentContent(emu, site.id);
  const spaFallback = body.spaFallback ?? current?.spaFallback ?? false;
  const updated = services(emu).update(site.id, { build: { ...site.build, staticSpa: spaFallback }, updatedAt: emu.now() });
  const deploy = queueDeploy(emu, updated, "MANUAL");
  attachContent(emu, upload, updated, deploy, body.indexPath ?? current?.indexPath ?? "index.html", spaFallback);
  return deploy;
}

function attachContent(emu: Emu, upload: StaticUpload, site: Service, deploy: Deploy, index: string, spaFallback: boolean): void {
  contents(emu).insert({
    id: deploy.id, serviceId: site.id, deploySeq: deploy.seq, uploadId: upload.id, indexPath: index, spaFallback, files: upload.files ?? {},
  });
  uploads(emu).update(upload.id, { status: "PUBLISHED", publishedTo: site.id, files: null });
}

/** The newest content row of a service (what the next deploy builds on). */
function currentContent(emu: Emu, serviceId: string): StaticContent | undefined {
  return contents(emu).where((c) => c.serviceId === serviceId).sort((a, b) => b.deploySeq - a.deploySeq)[0];
}

// ---- serving ----
const hostLabel = (s: Service) => s.subdomain ?? `${slug(s.name)}-${s.id.slice(0, 6)}`;

/** The content the live deploy serves: its own, a rollback target's, or the newest before it. */
function liveContent(emu: Emu, site: Service): StaticContent | undefined {
  const live = deploysOf(emu, site.id).find((d) => deployStatus(emu, d) === "RUNNING");
  if (!live) return undefined;
  const own = contents(emu).get(live.rollbackOf ?? live.id);
  if (own) return own;
  return contents(emu).where((c) => c.serviceId === site.id && c.deploySeq <= live.seq).sort((a, b) => b.deploySeq - a.deploySeq)[0];
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8", htm: "text/html; charset=utf-8", css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8", mjs: "text/javascript; charset=utf-8", json: "application/json",
  txt: "text/plain; charset=utf-8", xml: "application/xml", svg: "image/svg+xml", png: "image/png", jpg: "image/jpeg",
  jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", ico: "image/x-icon", wasm: "application/wasm",
  woff: "font/woff", woff2: "font/woff2", map: "application/json", webmanifest: "application/manifest+json",
};
export const contentTypeOf = (path: string) => TYPES[path.split(".").pop()!.toLowerCase()] ?? "application/octet-stream";

/** What GET {baseUrl}/_sites/{label}/{path} answers. */
export function serveSite(emu: Emu, label: string, rawPath: string): { status: number; contentType: string; body: Buffer } {
  const text = (status: number, msg: string) => ({ status, contentType: "text/plain; charset=utf-8", body: Buffer.from(msg + "\n") });
  const site = services(emu).find((s) => s.type === "STATIC" && hostLabel(s) === label);
  if (!site) return text(404, `No static site is served at '${label}'`);
  if (site.suspension !== "NONE") return text(503, `Site '${label}' is suspended`);
  const content = liveContent(emu, site);
  if (!content) return text(503, `Site '${label}' has no live deploy yet`);
  let path: string;
  try {
    path = decodeURIComponent(rawPath).replace(/^\/+/, "");
  } catch {
    return text(400, "The path is not valid percent-encoding");
  }
  const candidates = path === "" ? [content.indexPath] : path.endsWith("/") ? [`${path}index.html`] : [path, `${path}/index.html`, `${path}.html`];
  const hit = candidates.find((p) => content.files[p] !== undefined)
    ?? (content.spaFallback && content.files[content.indexPath] !== undefined ? content.indexPath : undefined);
  if (!hit) return text(404, `Not found: /${path}`);
  return { status: 200, contentType: contentTypeOf(hit), body: Buffer.from(content.files[hit], "base64") };
}

/** A service's static content and the uploads published to it go with it (cascades.ts). */
export function deleteStaticContentOf(emu: Emu, serviceId: string): void {
  for (const c of contents(emu).where((x) => x.serviceId === serviceId)) contents(emu).delete(c.id);
  for (const u of uploads(emu).where((x) => x.publishedTo === serviceId)) uploads(emu).delete(u.id);
}

// ---- views ----
/** Where the emulator serves a site itself, and the files of the deploy that is live (the dashboard). */
export function siteView(emu: Emu, site: Service) {
  const path = `/_sites/${encodeURIComponent(hostLabel(site))}/`;
  const content = liveContent(emu, site);
  return {
    path,
    localUrl: `${emu.settings.baseUrl ?? ""}${path}`,
    indexPath: content?.indexPath ?? null,
    spaFallback: content?.spaFallback ?? false,
    files: Object.entries(content?.files ?? {})
      .map(([file, b64]) => ({ path: file, size: Buffer.byteLength(b64, "base64"), contentType: contentTypeOf(file) }))
      .sort((a, b) => a.path.localeCompare(b.path)),
  };
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
