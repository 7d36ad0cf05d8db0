// The StaticSite handlers called directly against the in-process emulator: check (content hash,
// path errors, unknowns), the deterministic zip, diff, and create/read/update/delete.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { unzipSync } from "fflate";
import { request } from "undici";
import { type Context, ResourceInitError, UNKNOWN } from "../../provider/resources/framework";
import { StaticSite, type StaticSiteInputs } from "../../provider/resources/staticSite";
import { artifactOf, deterministicZip, MAX_UPLOAD_BYTES, siteFiles, sizeProblem } from "../../provider/resources/staticSiteContent";
import { handlerSuite, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
let ctx: Context;
let dir: string;
let environmentId: string;
handlerSuite({ settings: { speed: 0 } }, (e, c) => {
  emu = e;
  ctx = c;
});
beforeEach(async () => {
  emu.emu.settings.speed = 0;
  dir = mkdtempSync(join(tmpdir(), "static-site-"));
  write("site/index.html", "<h1>v1</h1>");
  write("site/css/app.css", "body{}");
  const project = await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "handlers" });
  environmentId = (await ctx.client.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" })).id;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const full = join(dir, rel);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, text);
  return full;
}
const site = () => join(dir, "site");
const check = (news: Record<string, unknown>) => StaticSite.check!({}, news) as { inputs?: StaticSiteInputs; failures?: { property: string; reason: string }[] };
const page = async (url: string, path = "/") => {
  const res = await request(`${emu.baseUrl}/_sites/${new URL(url).hostname.split(".")[0]}${path}`);
  return { status: res.statusCode, text: await res.body.text() };
};

test("check hashes the content: the same files give the same hash, a changed byte or name another", () => {
  const a = check({ path: site(), name: "docs" }).inputs!;
  expect(a.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(a).toMatchObject({ indexPath: "index.html", spaFallback: false });
  expect(check({ path: site(), name: "docs" }).inputs!.contentHash).toBe(a.contentHash);
  write("site/css/app.css", "body{ }");
  const b = check({ path: site(), name: "docs" }).inputs!.contentHash;
  expect(b).not.toBe(a.contentHash);
  write("site/css/app.css", "body{}");
  expect(check({ path: site(), name: "docs" }).inputs!.contentHash).toBe(a.contentHash);
  rmSync(join(dir, "site/css/app.css"));
  write("site/css/main.css", "body{}");
  expect(check({ path: site(), name: "docs" }).inputs!.contentHash).not.toBe(a.contentHash);
  // A single .html or .zip file is hashed too.
  expect(check({ path: write("one.html", "<p>x</p>") }).inputs!.contentHash).toMatch(/^sha256:/);
});

test("check names path when it is missing, of the wrong type or empty, and validates the rest even with unknowns", () => {
  expect(check({ path: join(dir, "nope") }).failures).toEqual([{ property: "path", reason: `path: '${join(dir, "nope")}' does not exist` }]);
  expect(check({ path: write("notes.txt", "x") }).failures![0].reason).toContain("must be a directory, a .zip file or an .html file");
  mkdirSync(join(dir, "empty"));
  expect(check({ path: join(dir, "empty") }).failures![0].reason).toContain("holds no files");
  const bad = check({ path: site(), indexPath: "../etc/passwd", spaFallback: "yes", timeout: "soon" }).failures!.map((f) => f.property);
  expect(bad).toEqual(expect.arrayContaining(["indexPath", "spaFallback", "timeout"]));
  expect(check({ path: site(), indexPath: "app.js" }).failures![0].reason).toBe("indexPath: must name an .html page");
  // With an unknown path the hash is skipped; the other inputs are still checked.
  const unknownPath = check({ path: UNKNOWN, name: "docs" });
  expect(unknownPath.inputs).toMatchObject({ path: UNKNOWN, name: "docs" });
  expect(unknownPath.inputs!.contentHash).toBeUndefined();
  expect(check({ path: UNKNOWN, name: "bad name!" }).failures![0].property).toBe("name");
  expect(check({ path: join(dir, "nope"), environmentId: UNKNOWN }).failures![0].property).toBe("path");
});

test("a directory zips deterministically: the same files give the same bytes, readable by unzip", async () => {
  const one = deterministicZip(siteFiles(site()));
  // A later mtime on disk must not matter.
  const later = new Date(Date.now() + 3_600_000);
  utimesSync(write("site/index.html", "<h1>v1</h1>"), later, later);
  const two = deterministicZip(siteFiles(site()));
  expect(two.equals(one)).toBe(true);
  const entries = unzipSync(new Uint8Array(one));
  expect(Object.keys(entries)).toEqual(["css/app.css", "index.html"]);
  expect(Buffer.from(entries["index.html"]).toString()).toBe("<h1>v1</h1>");
  expect(artifactOf(site())).toMatchObject({ filename: "site.zip", contentType: "application/zip" });
  expect(artifactOf(write("page.html", "x"))).toMatchObject({ filename: "page.html", contentType: "text/html" });
});

test("diff: content, indexPath, spaFallback and name update in place; environmentId replaces", () => {
  const olds = { path: site(), environmentId, name: "docs", indexPath: "index.html", spaFallback: false, timeout: null, contentHash: "sha256:a", url: null, serviceId: "s", deployId: "d", createdAt: null };
  const news = { path: site(), environmentId, name: "docs", indexPath: "index.html", spaFallback: false, contentHash: "sha256:a" };
  expect(StaticSite.diff!("s", olds, news)).toMatchObject({ changes: false, replaces: [] });
  expect(StaticSite.diff!("s", olds, { ...news, contentHash: "sha256:b" })).toMatchObject({ changes: true, replaces: [] });
  expect(StaticSite.diff!("s", olds, { ...news, spaFallback: true })).toMatchObject({ changes: true, replaces: [] });
  expect(StaticSite.diff!("s", olds, { ...news, name: "docs-2" })).toMatchObject({ changes: true, replaces: [] });
  expect(StaticSite.diff!("s", olds, { ...news, environmentId: "other" })).toMatchObject({ changes: true, replaces: ["environmentId"] });
  expect(StaticSite.diff!("s", olds, { ...news, environmentId: undefined })).toMatchObject({ changes: false });
});

test("create publishes and waits; update deploys new content in place on the same URL; read finds drift; delete removes it", async () => {
  const inputs = check({ path: site(), environmentId, name: "docs" }).inputs!;
  const created = await StaticSite.create(ctx, inputs);
  expect(created.outs).toMatchObject({ serviceId: created.id, environmentId, name: "docs", contentHash: inputs.contentHash, indexPath: "index.html" });
  expect(created.outs.url).toMatch(/^https:\/\/docs-[0-9a-f]{6}\.cloudplatform\.app$/);
  expect((await ctx.client.get<any>(`/v1/deploys/${created.outs.deployId}`)).status).toBe("RUNNING");
  expect((await page(created.outs.url!)).text).toBe("<h1>v1</h1>");

  // New content, SPA fallback on and a rename: one static deploy and one PATCH, same service and URL.
  write("site/index.html", "<h1>v2</h1>");
  const news = check({ path: site(), environmentId, name: "docs-v2", spaFallback: true }).inputs!;
  const updated = await StaticSite.update!(ctx, created.id, created.outs, news);
  expect(updated.outs).toMatchObject({ serviceId: created.id, url: created.outs.url, name: "docs-v2", spaFallback: true, contentHash: news.contentHash });
  expect(updated.outs.deployId).not.toBe(created.outs.deployId);
  expect((await page(created.outs.url!)).text).toBe("<h1>v2</h1>");
  expect((await page(created.outs.url!, "/client/route")).text).toBe("<h1>v2</h1>");
  expect(await ctx.client.list(`/v1/services/${created.id}/deploys`)).toHaveLength(2);

  // A rename alone makes no deploy.
  const renamed = await StaticSite.update!(ctx, created.id, updated.outs, { ...news, name: "docs-v3" });
  expect(renamed.outs.deployId).toBe(updated.outs.deployId);
  expect(await ctx.client.list(`/v1/services/${created.id}/deploys`)).toHaveLength(2);

  // Drift: a rename and a deploy made behind Pulumi's back.
  await ctx.client.patch(`/v1/services/${created.id}`, { name: "by-hand" });
  await ctx.client.create(`/v1/services/${created.id}/deploys`, undefined);
  const read = await StaticSite.read!(ctx, created.id, renamed.outs);
  expect(read.inputs).toMatchObject({ name: "by-hand" });
  expect(read.props!.contentHash).toContain("outside Pulumi");
  const drift = StaticSite.diff!(created.id, read.props!, { ...news, name: "docs-v3" });
  expect(drift).toMatchObject({ changes: true, replaces: [] });
  const repaired = await StaticSite.update!(ctx, created.id, read.props!, { ...news, name: "docs-v3" });
  expect(repaired.outs).toMatchObject({ name: "docs-v3", contentHash: news.contentHash });

  await StaticSite.delete!(ctx, created.id, repaired.outs);
  expect(await StaticSite.read!(ctx, created.id, repaired.outs)).toEqual({});
  await StaticSite.delete!(ctx, created.id, repaired.outs); // already gone: success
  const left = await emu.leftovers();
  expect(left.staticUploads).toBeUndefined();
  expect(left.staticContent).toBeUndefined();
});

test("without environmentId the site lands in the workspace's static-sites project; an .html file is a one-page site", async () => {
  const inputs = check({ path: write("landing.html", "<p>landing</p>"), name: "landing" }).inputs!;
  const created = await StaticSite.create(ctx, inputs);
  const env = await ctx.client.get<any>(`/v1/environments/${created.outs.environmentId}`);
  expect(env.project.name).toBe("static-sites");
  expect((await page(created.outs.url!)).text).toBe("<p>landing</p>");
});

test("a deploy that does not go live in time leaves the site in state as created but broken", async () => {
  emu.emu.settings.speed = 1;
  const inputs = check({ path: site(), environmentId, name: "slow", timeout: "1s" }).inputs!;
  const err = await failure(StaticSite.create(ctx, inputs));
  expect(err).toBeInstanceOf(ResourceInitError);
  expect(err.message).toContain("after 1s");
  expect(err.properties).toMatchObject({ serviceId: err.id, name: "slow", contentHash: null });
  expect((await ctx.client.get<any>(`/v1/services/${err.id}`)).type).toBe("STATIC");
  // The next `up` updates it: the unrecorded hash makes it deploy the content again.
  emu.emu.settings.speed = 0;
  const fixed = await StaticSite.update!(ctx, err.id, err.properties, inputs);
  expect(fixed.outs.contentHash).toBe(inputs.contentHash);
  expect((await ctx.client.get<any>(`/v1/deploys/${fixed.outs.deployId}`)).status).toBe("RUNNING");
});

test("check refuses what create would: an environmentId that is not a uuid, content over the upload limit (naming path)", () => {
  expect(check({ path: site(), environmentId: "prod" }).failures).toEqual([
    { property: "environmentId", reason: expect.stringMatching(/^environmentId: must be a uuid/) },
  ]);
  const big = write("big.html", "x".repeat(MAX_UPLOAD_BYTES + 1));
  expect(check({ path: big }).failures).toEqual([
    { property: "path", reason: `path: the content is ${MAX_UPLOAD_BYTES + 1} bytes; the platform takes uploads of at most ${MAX_UPLOAD_BYTES} bytes` },
  ]);
  // A folder is measured zipped, and only zipped when its files could come near the limit.
  writeFileSync(join(site(), "blob.bin"), randomBytes(4096));
  expect(sizeProblem(site(), siteFiles(site()), 1_000)).toMatch(/^the content is \d+ bytes zipped; the platform takes uploads of at most 1000 bytes$/);
  expect(sizeProblem(site(), siteFiles(site()))).toBeUndefined();
});

test("state holds no machine's path: inside the program's folder path is kept relative, the same folder named another way is no change", () => {
  const inside = join("test", "programs", "static-site", "site");
  expect(check({ path: inside }).inputs!.path).toBe("test/programs/static-site/site");
  expect(check({ path: resolve(inside) }).inputs!.path).toBe("test/programs/static-site/site");
  expect(check({ path: `./${inside}/` }).inputs!.path).toBe("test/programs/static-site/site");
  expect(check({ path: site() }).inputs!.path).toBe(site()); // outside it: as given
  const olds = { path: resolve(inside), environmentId, name: "docs", indexPath: "index.html", spaFallback: false, timeout: null, contentHash: "sha256:a", url: null, serviceId: "s", deployId: "d", createdAt: null };
  const news = { path: "test/programs/static-site/site", environmentId, name: "docs", indexPath: "index.html", spaFallback: false, contentHash: "sha256:a" };
  expect(StaticSite.diff!("s", olds, news)).toMatchObject({ changes: false });
  expect(StaticSite.diff!("s", olds, { ...news, path: site() })).toMatchObject({ changes: true, replaces: [] });
});

test("a missing environment fails the create before any upload is reserved", async () => {
  const inputs = check({ path: site(), environmentId: "7d3c1a0e-5b2f-4c8d-9e6a-1f2b3c4d5e6f", name: "docs" }).inputs!;
  const err = await failure(StaticSite.create(ctx, inputs));
  expect(err.message).toBe("environmentId: no environment 7d3c1a0e-5b2f-4c8d-9e6a-1f2b3c4d5e6f (or the API key cannot see it)");
  expect((await emu.leftovers()).staticUploads).toBeUndefined();
});

test("the platform's own redeploy (a custom domain coming or going) is not drift; another deploy is", async () => {
  const inputs = check({ path: site(), environmentId, name: "docs" }).inputs!;
  const created = await StaticSite.create(ctx, inputs);
  const domain = await ctx.client.create<any>(`/v1/services/${created.id}/custom-domains`, { domain: "docs.example.com" });
  await ctx.client.delete(`/v1/custom-domains/${domain.id}`);
  const deploys = await ctx.client.list<any>(`/v1/services/${created.id}/deploys`);
  expect(deploys.map((d) => `${d.trigger} ${d.status}`)).toEqual(["SYSTEM RUNNING", "FIRST_DEPLOY REPLACED"]);
  const read = await StaticSite.read!(ctx, created.id, created.outs);
  expect(read.props).toEqual(created.outs);
  expect(StaticSite.diff!(created.id, read.props!, inputs)).toMatchObject({ changes: false });
  // A deploy by hand serves whatever it was given: shown as drift.
  await ctx.client.create(`/v1/services/${created.id}/deploys`, undefined);
  expect((await StaticSite.read!(ctx, created.id, created.outs)).props!.contentHash).toContain("was made outside Pulumi");
});

test("a publish refused for a name taken in the environment reserves no upload; an upload never published is forgotten when its URL expires", async () => {
  const first = await StaticSite.create(ctx, check({ path: site(), environmentId, name: "docs" }).inputs!);
  const err = await failure(StaticSite.create(ctx, check({ path: site(), environmentId, name: "DOCS" }).inputs!));
  expect(err.message).toBe(`name: environment ${environmentId} already has a service named 'docs' (${first.id}); names are unique in an environment`);
  expect((await emu.leftovers()).staticUploads).toBe(1); // the one the first site published
  // Bytes uploaded, never published (the create failed after the upload): gone once the URL expires.
  const u = await ctx.client.post<any>("/v1/static-uploads", { filename: "x.html", contentType: "text/html", sizeBytes: 3 });
  await request(u.url, { method: "PUT", headers: Object.fromEntries(u.headers.map((h: any) => [h.name, h.value])), body: "<p>" });
  await emu.control("POST", "/time", { advanceMs: 901_000 });
  await ctx.client.post("/v1/static-uploads", { filename: "y.html", contentType: "text/html", sizeBytes: 3 });
  expect((await emu.leftovers()).staticUploads).toBe(2); // the published one and the new reservation
});
