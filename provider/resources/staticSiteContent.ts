// What a StaticSite publishes: the files under `path` (a directory, a .zip or an .html file), their
// content hash, the deterministic zip of a directory, and the upload of those bytes through a
// reserved, presigned URL (infrastructure routes §4.9).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { zipSync } from "fflate";
import { request } from "../client/transport";
import { staticSiteApi } from "../api/endpoints/staticSites";
import type { Context } from "./framework";

export type PathKind = "directory" | "zip" | "html";

export interface SiteFile {
  /** Relative path with '/' separators. */
  path: string;
  bytes: Buffer;
}

export interface Artifact {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/** What `path` is, or a reason it cannot be published (for check). */
export function pathKind(path: string): { kind?: PathKind; problem?: string } {
  let st;
  try {
    st = statSync(resolve(path));
  } catch {
    return { problem: `'${path}' does not exist` };
  }
  if (st.isDirectory()) return { kind: "directory" };
  if (st.isFile() && /\.zip$/i.test(path)) return { kind: "zip" };
  if (st.isFile() && /\.html?$/i.test(path)) return { kind: "html" };
  return { problem: `'${path}' must be a directory, a .zip file or an .html file` };
}

/** The files `path` holds, sorted by relative path; a single file is one entry named after itself. */
export function siteFiles(path: string): SiteFile[] {
  const root = resolve(path);
  if (!statSync(root).isDirectory()) return [{ path: basename(root), bytes: readFileSync(root) }];
  const out: SiteFile[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      const st = statSync(full);
      if (st.isDirectory()) walk(full, rel);
      else if (st.isFile()) out.push({ path: rel, bytes: readFileSync(full) });
    }
  };
  walk(root, "");
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * `path` as state keeps it: inside the program's directory (the provider's working directory),
 * relative to it with '/' separators, so another checkout of the program reads the same; outside
 * it, as the program gave it.
 */
export function portablePath(path: string): string {
  const rel = relative(process.cwd(), resolve(path));
  if (isAbsolute(path) && (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))) return path;
  return (rel || ".").split(sep).join("/");
}

/** Two spellings of the same location (an older state may hold an absolute path). */
export const samePath = (a: unknown, b: unknown): boolean =>
  typeof a === "string" && typeof b === "string" && a !== "" && b !== "" && resolve(a) === resolve(b);

/** The platform's largest upload (V1StaticUpload.maxBytes; docs/api-assumptions.md). */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

/** Why the content cannot be uploaded in one piece, or undefined when it fits. */
export function sizeProblem(path: string, files: SiteFile[], maxBytes = MAX_UPLOAD_BYTES): string | undefined {
  const { kind } = pathKind(path);
  // A zip is never more than its files stored as they are plus their headers (and deflate's 5 bytes
  // per stored block), so only a site near the limit is zipped here to be measured.
  const bound = files.reduce((n, f) => n + f.bytes.length + 5 * Math.ceil(f.bytes.length / 65_535) + 100 + 2 * Buffer.byteLength(f.path), 22);
  const size = kind === "directory" ? (bound <= maxBytes ? 0 : deterministicZip(files).length) : files[0]?.bytes.length ?? 0;
  if (size <= maxBytes) return undefined;
  return `the content is ${size} bytes${kind === "directory" ? " zipped" : ""}; the platform takes uploads of at most ${maxBytes} bytes`;
}

/** sha256 over the sorted relative paths and bytes: it changes exactly when a file (or its name) does. */
export function contentHash(files: SiteFile[]): string {
  const h = createHash("sha256");
  for (const f of files) {
    h.update(`${f.path}\0${f.bytes.length}\0`);
    h.update(f.bytes);
  }
  return `sha256:${h.digest("hex")}`;
}

// Local-time fields, so the DOS timestamp in the archive is the same in every time zone.
const FIXED_MTIME = new Date(2000, 0, 1, 0, 0, 0);
const LEVEL = 6;

/** A zip of the files, byte-for-byte the same for the same files: sorted entries, fixed mtime and level. */
export function deterministicZip(files: SiteFile[]): Buffer {
  const entries: Record<string, [Uint8Array, { mtime: Date; level: typeof LEVEL }]> = {};
  for (const f of files) entries[f.path] = [new Uint8Array(f.bytes), { mtime: FIXED_MTIME, level: LEVEL }];
  return Buffer.from(zipSync(entries));
}

/** The bytes to upload for `path`: a .zip or .html as they are, a directory zipped. */
export function artifactOf(path: string): Artifact {
  const { kind, problem } = pathKind(path);
  if (!kind) throw new Error(`path: ${problem}`);
  const root = resolve(path);
  if (kind === "zip") return { filename: basename(root), contentType: "application/zip", bytes: readFileSync(root) };
  if (kind === "html") return { filename: basename(root).replace(/\.htm$/i, ".html"), contentType: "text/html", bytes: readFileSync(root) };
  const files = siteFiles(root);
  if (!files.length) throw new Error(`path: directory '${path}' holds no files`);
  return { filename: `${basename(root) || "site"}.zip`, contentType: "application/zip", bytes: deterministicZip(files) };
}

/**
 * Reserves an upload and sends the bytes to its presigned URL with the method and headers it
 * names (no API key: the URL is the credential). Returns the upload id to publish.
 */
export async function uploadArtifact(ctx: Context, what: string, a: Artifact): Promise<string> {
  const u = await staticSiteApi.reserveUpload(ctx.client, { filename: a.filename, contentType: a.contentType, sizeBytes: a.bytes.length });
  if (u.maxBytes && a.bytes.length > u.maxBytes) {
    throw new Error(`path: ${what}: the content is ${a.bytes.length} bytes; the platform takes uploads of at most ${u.maxBytes} bytes`);
  }
  const headers: Record<string, string> = Array.isArray(u.headers)
    ? Object.fromEntries(u.headers.map((h) => [h.name, h.value]))
    : { ...u.headers };
  const res = await request(u.url, { method: u.method.toUpperCase() as "PUT", headers, body: a.bytes });
  const text = await res.body.text();
  if (res.statusCode >= 300) {
    let message = text;
    try {
      const m = JSON.parse(text).message;
      message = Array.isArray(m) ? m.join("; ") : String(m ?? text);
    } catch {
      // not JSON: keep the text
    }
    throw new Error(`${what}: uploading ${a.filename} (${a.bytes.length} bytes) failed with ${res.statusCode}: ${message}`);
  }
  ctx.log(`${what}: uploaded ${a.filename} (${a.bytes.length} bytes)`);
  return u.uploadId;
}
