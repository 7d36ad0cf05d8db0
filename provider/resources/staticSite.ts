// StaticSite: a local folder, .zip or .html file published as a STATIC service (infrastructure routes
// §2.6, §4.9). check hashes the content, so a preview shows an update exactly when a file changed;
// create publishes a new site, later content goes out as a static deploy in place, on the same URL.
import { z } from "zod";
import { deployApi, serviceApi } from "../api/endpoints/services";
import { staticSiteApi } from "../api/endpoints/staticSites";
import type { V1Deploy, V1Service } from "../api/services";
import { NotFoundError, PermissionDeniedError } from "../client";
import {
  checkWith, compact, type Context, defineResource, deleteIgnoringNotFound, diffWith, findOrUndefined,
  isImport, isUnknown, ResourceInitError, same,
} from "./framework";
import { DeployFailedError, waitForDeploy } from "./deploy-wait";
import { duration, name, uuid } from "./rules";
import { findEnvironment } from "./environment";
import { artifactOf, contentHash, pathKind, portablePath, samePath, siteFiles, sizeProblem, uploadArtifact } from "./staticSiteContent";
import { parseDuration } from "./waiter";

// ---- schemas ----
const INDEX_RULE = /^[A-Za-z0-9_.~@+\-/ ]{1,255}$/;

export const staticSiteInputs = z.object({
  path: z.string({ error: "must be a string" }).min(1, "must not be empty").describe("A local directory, .zip file or .html file to publish. Relative paths are resolved against the program's directory; a path inside that directory is kept relative to it, so the stack runs the same from any checkout."),
  environmentId: uuid("Environment the site lives in; omitted means the workspace's static-sites project. Changing it replaces the site.").optional(),
  name: name("Site (service) name, unique within the environment; defaults to the resource's name. Changing it renames in place.").optional(),
  indexPath: z.string({ error: "must be a string" })
    .regex(INDEX_RULE, "must be a relative file path such as 'index.html'")
    .refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), "must be relative to the site root, without '..'")
    .refine((p) => /\.html?$/i.test(p), "must name an .html page")
    .optional().describe("Page served at '/': an .html file path relative to the site root, at most 255 characters, without '..'; default index.html. Changing it deploys in place."),
  spaFallback: z.boolean({ error: "must be a boolean" }).optional().describe("Serve the index page for unknown paths (single-page app); default false. Changing it deploys in place."),
  timeout: duration("How long to wait for a deploy to go live, e.g. '90s' or '15m'; default '10m'.").optional(),
});
export type StaticSiteInputs = z.infer<typeof staticSiteInputs> & { contentHash?: string };

export const staticSiteOutputs = z.object({
  path: z.string().describe("The published directory or file, relative to the program's directory when it lies inside it."),
  environmentId: z.string().describe("Environment the site lives in."),
  name: z.string().describe("Site (service) name."),
  indexPath: z.string().describe("Page served at '/'."),
  spaFallback: z.boolean().describe("Whether unknown paths serve the index page."),
  timeout: z.string().nullable().describe("The deploy wait limit used."),
  contentHash: z.string().nullable().describe("sha256 of the published files (sorted relative paths and bytes)."),
  url: z.string().nullable().describe("The site's public URL; it stays the same across content updates."),
  serviceId: z.string().describe("The STATIC service behind the site (also the resource id)."),
  deployId: z.string().nullable().describe("The deploy that published the current content."),
  createdAt: z.string().nullable().describe("Creation time (ISO 8601)."),
});
export type StaticSiteOutputs = z.infer<typeof staticSiteOutputs>;

const DIFF = {
  update: ["path", "name", "indexPath", "spaFallback", "contentHash", "timeout"],
  replace: ["environmentId"],
  defaulted: ["environmentId", "name", "timeout"],
};
const DEFAULT_TIMEOUT = "10m";
/** What makes a new static deploy; a path or name change alone does not. */
const CONTENT_KEYS = ["contentHash", "indexPath", "spaFallback"] as const;

export const StaticSite = defineResource<StaticSiteInputs, StaticSiteOutputs>({
  token: "cloudplatform:index:StaticSite",
  description: "A static site published from a local directory, .zip or .html file. Content changes deploy in place on the same URL; waits for each deploy to go live.",
  inputs: staticSiteInputs,
  outputs: staticSiteOutputs,
  // A rename keeps the URL; only new content makes a new deploy.
  stableOutputs: (olds, news) => ["url", "serviceId", "createdAt", ...(CONTENT_KEYS.some((k) => !same(olds[k], news[k])) ? [] : ["deployId"])],
  deleteBeforeReplace: true,
  importId: {
    format: "<siteId>",
    note: "The site's content cannot be read back: the program must give `path` (an import writes a placeholder that check refuses until it is replaced), and the next `up` deploys that content.",
  },

  inputsOf: (o) => toInputs(o),

  // ---- check ----
  check(_olds, news) {
    const r = checkWith<StaticSiteInputs>(staticSiteInputs, news);
    // The path is checked, and hashed, whenever it is known, whatever the other inputs are.
    let hash: string | undefined;
    // The placeholder an import wrote passes here, so the import itself validates; diff refuses it.
    if (typeof news.path === "string" && news.path !== "" && news.path !== IMPORTED_PATH && !isUnknown(news.path)) {
      const { problem } = pathKind(news.path);
      const files = problem ? [] : siteFiles(news.path);
      const failure = problem ?? (files.length ? sizeProblem(news.path, files) : `directory '${news.path}' holds no files`);
      if (failure) return { failures: [...(r.failures ?? []), { property: "path", reason: `path: ${failure}` }] };
      hash = contentHash(files);
    }
    if (!r.inputs) return r;
    const i = r.inputs;
    if (hash) i.contentHash = hash;
    // No machine-specific path in state: inside the program's directory it is kept relative.
    if (typeof i.path === "string" && i.path !== IMPORTED_PATH && !isUnknown(i.path)) i.path = portablePath(i.path);
    // Defaults are filled in, so removing a setting puts the default back.
    if (i.indexPath === undefined) i.indexPath = "index.html";
    if (i.spaFallback === undefined) i.spaFallback = false;
    return r;
  },

  // ---- diff ----
  diff(_id, olds, news) {
    if (news.path === IMPORTED_PATH) throw new Error("path: an imported site's content cannot be read back; set path to the directory, .zip or .html file the site publishes");
    // The same folder named another way (relative here, absolute in an older state) is no change.
    return diffWith(olds, samePath(olds.path, news.path) ? { ...news, path: olds.path } : news, DIFF);
  },

  // ---- create ----
  async create(ctx, inputs) {
    const what = inputs.name ?? inputs.path;
    // What would refuse the publish is found before an upload is reserved for it.
    if (inputs.environmentId) await publishable(ctx, inputs.environmentId, inputs.name);
    const uploadId = await uploadArtifact(ctx, what, artifactOf(inputs.path));
    const published = await staticSiteApi.publish(ctx.client, compact({
      uploadId, environmentId: inputs.environmentId, name: inputs.name, indexPath: inputs.indexPath, spaFallback: inputs.spaFallback,
    }), { own: (made) => made.site.id, exists: async (made) => !!(await findSite(ctx, made.site.id)) });
    const site = published.site;
    ctx.log(`${site.name}: published as service ${site.id}; deploy ${published.deploy.id} queued`);
    try {
      await waitForDeploy(ctx, site.name, published.deploy.id, { timeoutMs: timeoutOf(inputs) });
    } catch (err) {
      // The site exists, whatever went wrong: keep it in state, so the next `up` deploys to it
      // instead of making another. With no recorded hash, that `up` deploys the content again.
      const message = err instanceof Error ? err.message : String(err);
      const outs = await readOutputs(ctx, site.id, inputs, published.deploy.id).catch(() => undefined);
      const props = { ...(outs ?? toOutputs(site, inputs, published.deploy.id)), contentHash: null };
      throw new ResourceInitError(message, site.id, props, [message]);
    }
    const outs = await readOutputs(ctx, site.id, inputs, published.deploy.id);
    if (!outs) throw new Error(`${what}: site ${site.id} disappeared right after it was published`);
    return { id: site.id, outs };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const importing = isImport(olds);
    const live = await contentDeploy(ctx, id);
    // An import records the deploy whose content is live.
    const deployId = importing ? (live?.id ?? null) : (olds.deployId ?? null);
    const outs = await readOutputs(ctx, id, importing ? { path: IMPORTED_PATH } : toInputs(olds), deployId);
    if (!outs) return {};
    // The program owns the content it uploaded. The platform's own redeploys (SYSTEM, e.g. once a
    // custom domain verifies) serve that same content; any other deploy may serve other content:
    // shown as drift, repaired by `up`.
    if (live && olds.deployId && live.id !== olds.deployId) {
      outs.contentHash = `unknown: deploy ${live.id} was made outside Pulumi`;
      outs.deployId = live.id;
    }
    return { id, props: outs, inputs: toInputs(outs) };
  },

  // ---- update ----
  async update(ctx, id, olds, news) {
    let deployId = olds.deployId ?? null;
    if (news.name !== undefined && news.name !== olds.name) await serviceApi.patch(ctx.client, id, { name: news.name });
    const name = news.name ?? olds.name;
    if (CONTENT_KEYS.some((k) => news[k] !== olds[k])) {
      const uploadId = await uploadArtifact(ctx, name, artifactOf(news.path));
      const deploy = await staticSiteApi.deploy(ctx.client, id, { uploadId, indexPath: news.indexPath, spaFallback: news.spaFallback });
      ctx.log(`${name}: deploy ${deploy.id} queued to replace the content in place`);
      try {
        await waitForDeploy(ctx, name, deploy.id, { timeoutMs: timeoutOf(news) });
      } catch (err) {
        // Update errors keep the previous state; the next `up` deploys the content again.
        if (err instanceof DeployFailedError) throw new Error(err.message);
        throw err;
      }
      deployId = deploy.id;
    }
    const outs = await readOutputs(ctx, id, news, deployId);
    if (!outs) throw new Error(`${name}: site ${id} was deleted while it was being updated`);
    return { outs };
  },

  // ---- delete ----
  async delete(ctx, id) {
    await deleteIgnoringNotFound(() => serviceApi.delete(ctx.client, id));
  },
});

// ---- finders ----
/** Fails, naming the input, when the environment is missing or already has a service of this name. */
async function publishable(ctx: Context, environmentId: string, name: string | undefined): Promise<void> {
  if (!(await findEnvironment(ctx, environmentId))) throw new Error(`environmentId: no environment ${environmentId} (or the API key cannot see it)`);
  if (name === undefined) return;
  const taken = (await serviceApi.listIn(ctx.client, environmentId))
    .find((s) => s.name.toLowerCase() === name.toLowerCase());
  if (taken) throw new Error(`name: environment ${environmentId} already has a service named '${taken.name}' (${taken.id}); names are unique in an environment`);
}

export function findSite(ctx: Context, id: string): Promise<V1Service | undefined> {
  return findOrUndefined(() => serviceApi.get(ctx.client, id));
}

/**
 * The deploy whose content the site serves: the newest live one, looking through the platform's
 * own redeploys (trigger SYSTEM), which serve the content of the deploy before them. Undefined when
 * nothing went live, or the key cannot read deploys.
 */
export async function contentDeploy(ctx: Context, id: string): Promise<V1Deploy | undefined> {
  let seenLive = false;
  try {
    for await (const d of deployApi.each(ctx.client, id)) {
      // Newest first: the first RUNNING deploy is live; the ones it replaced went live before it.
      if (!seenLive && d.status !== "RUNNING") continue;
      if (seenLive && d.status !== "RUNNING" && d.status !== "REPLACED") continue;
      seenLive = true;
      if (d.trigger !== "SYSTEM") return d;
    }
  } catch (err) {
    if (!(err instanceof PermissionDeniedError || err instanceof NotFoundError)) throw err;
  }
  return undefined;
}


/** The `path` an import records (and its generated code shows) until the program gives the real one. */
export const IMPORTED_PATH = "<set path to the directory, .zip or .html file this site publishes>";
const timeoutOf = (i: Partial<StaticSiteInputs>) => parseDuration(i.timeout ?? DEFAULT_TIMEOUT);

async function readOutputs(ctx: Context, id: string, declared: Partial<StaticSiteInputs>, deployId: string | null): Promise<StaticSiteOutputs | undefined> {
  const svc = await findSite(ctx, id);
  return svc ? toOutputs(svc, declared, deployId) : undefined;
}

// ---- mappers ----
/** Content settings are not readable back from the platform: they are what was last deployed. */
function toOutputs(s: V1Service, declared: Partial<StaticSiteInputs>, deployId: string | null): StaticSiteOutputs {
  return {
    path: declared.path ?? "",
    environmentId: s.environmentId,
    name: s.name,
    indexPath: declared.indexPath ?? "index.html",
    spaFallback: declared.spaFallback ?? s.build.staticSpa ?? false,
    timeout: declared.timeout ?? null,
    contentHash: declared.contentHash ?? null,
    url: s.url ?? null,
    serviceId: s.id,
    deployId,
    createdAt: s.createdAt ?? null,
  };
}

function toInputs(o: StaticSiteOutputs): StaticSiteInputs {
  return compact({
    path: o.path, environmentId: o.environmentId, name: o.name, indexPath: o.indexPath, spaFallback: o.spaFallback,
    timeout: o.timeout ?? undefined, contentHash: o.contentHash ?? undefined,
  });
}
