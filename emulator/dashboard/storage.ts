// Dashboard views of buckets and their objects, custom domains, and static sites. Storage access
// keys are listed by id only: their secrets stay out of the dashboard.
import type { Emu } from "../emu";
import { notFound } from "../errors";
import { customDomainsIn, customDomainsOf, customDomainView } from "../models/custom-domains";
import { deploysOf, deployView } from "../models/deploys";
import { services } from "../models/services";
import { siteView } from "../models/static-sites";
import { bodyStream, findObject, objectsOf, objectView } from "../models/objects";
import { accessKeysOf, bucketsOf, bucketView, corsOf, findBucket, policyOf } from "../models/storage";
import { placement, serviceRow } from "./infra";
import { serviceRef, servicesOf, workspaceOf } from "./lookup";

/** How many objects a bucket page lists; a prefix narrows a larger bucket. */
const OBJECT_PAGE = 1_000;

export function storageOfWorkspace(emu: Emu, workspaceId: string) {
  const ws = workspaceOf(emu, workspaceId);
  return {
    workspaceId: ws.id,
    buckets: bucketsOf(emu, ws.id).map((b) => {
      const objs = objectsOf(emu, b.id);
      return {
        id: b.id, ...bucketView(emu, b), objects: objs.length, bytes: objs.reduce((n, o) => n + o.size, 0),
        corsRules: corsOf(emu, b).length, policy: policyOf(emu, b) !== null,
      };
    }),
    accessKeys: accessKeysOf(emu, ws).map((k) => ({ id: k.id, name: k.name, accessKeyId: k.accessKeyId, createdAt: k.createdAt })),
  };
}

export function bucketPage(emu: Emu, id: string, query: Record<string, unknown>) {
  const b = findBucket(emu, id);
  if (!b) throw notFound("Bucket", id);
  const prefix = typeof query.prefix === "string" ? query.prefix : "";
  const all = objectsOf(emu, b.id);
  const matching = prefix ? all.filter((o) => o.key.startsWith(prefix)) : all;
  return {
    workspaceId: b.workspaceId,
    bucket: { id: b.id, ...bucketView(emu, b), corsRules: corsOf(emu, b), policy: policyOf(emu, b) },
    prefix,
    objects: matching.slice(0, OBJECT_PAGE).map(objectView),
    matching: matching.length,
    total: all.length,
    bytes: all.reduce((n, o) => n + o.size, 0),
  };
}

/** An object's bytes for the dashboard's download link. */
export function objectDownload(emu: Emu, id: string, key: unknown) {
  const b = findBucket(emu, id);
  if (!b) throw notFound("Bucket", id);
  const o = typeof key === "string" ? findObject(emu, b.id, key) : undefined;
  if (!o) throw notFound("Object", `'${String(key ?? "")}' in bucket '${b.name}'`);
  // Streamed from its file, opened now.
  return { key: o.key, contentType: o.contentType, size: o.size, body: o.size === 0 ? Buffer.alloc(0) : bodyStream(emu, o) };
}

export function domainsOfWorkspace(emu: Emu, workspaceId: string) {
  const ws = workspaceOf(emu, workspaceId);
  return {
    workspaceId: ws.id,
    domains: customDomainsIn(emu, ws.id).map((d) => {
      const s = services(emu).get(d.serviceId);
      return { ...customDomainView(emu, d), service: s ? serviceRef(s) : null };
    }),
  };
}

export function sitesOfWorkspace(emu: Emu, workspaceId: string) {
  const ws = workspaceOf(emu, workspaceId);
  return {
    workspaceId: ws.id,
    sites: servicesOf(emu, ws.id)
      .filter((s) => s.type === "STATIC")
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((s) => {
        const site = siteView(emu, s);
        return {
          ...serviceRow(emu, s), ...placement(emu, s),
          localUrl: site.localUrl, path: site.path, files: site.files.length, bytes: site.files.reduce((n, f) => n + f.size, 0),
          customDomains: customDomainsOf(emu, s.id).map((d) => ({ id: d.id, domain: d.domain, status: d.status })),
        };
      }),
  };
}

export function sitePage(emu: Emu, id: string) {
  const s = services(emu).get(id);
  if (!s || s.type !== "STATIC") throw notFound("Static site", id);
  return {
    workspaceId: s.workspaceId,
    site: { ...serviceRow(emu, s), ...placement(emu, s), ...siteView(emu, s) },
    deploys: deploysOf(emu, s.id).slice(0, 20).map((d) => ({ ...deployView(emu, d), seq: d.seq })),
    customDomains: customDomainsOf(emu, s.id).map((d) => ({ id: d.id, domain: d.domain, status: d.status })),
  };
}
