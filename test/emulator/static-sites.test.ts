// Static uploads, sites and static deploys in the emulator, through the real client: reserve rules,
// the presigned PUT and its refusals, publishing, deploys in place, serving, scopes, cascades.
import { strToU8, zipSync } from "fflate";
import { request } from "undici";
import { emulator, type TestEmulator } from "../support/emulator";
import type { CloudPlatformClient } from "../../provider/client";
import { failure } from "../support/helpers";

const MAX = 64 * 1024;
let emu: TestEmulator;
let api: CloudPlatformClient;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 1, staticUploadMaxBytes: MAX } });
  api = emu.client();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const advance = (ms: number) => emu.control("POST", "/time", { advanceMs: ms });
const SETTLE = 60_000;

const zipOf = (files: Record<string, string>) => Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)]))));

async function reserve(bytes: Buffer, filename = "site.zip", contentType = "application/zip", client = api) {
  return client.create<any>("/v1/static-uploads", { filename, contentType, sizeBytes: bytes.length });
}

async function put(upload: any, bytes: Buffer, headers?: Record<string, string>) {
  const h = headers ?? Object.fromEntries(upload.headers.map((x: any) => [x.name, x.value]));
  const res = await request(upload.url, { method: upload.method, headers: h, body: bytes });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** Reserves and uploads; returns the upload id. */
async function uploaded(files: Record<string, string> | Buffer, client = api): Promise<string> {
  const bytes = Buffer.isBuffer(files) ? files : zipOf(files);
  const u = await reserve(bytes, "site.zip", "application/zip", client);
  expect((await put(u, bytes)).status).toBe(200);
  return u.uploadId;
}

async function fetchSite(url: string, path = "/") {
  const label = new URL(url).hostname.split(".")[0];
  const res = await request(`${emu.baseUrl}/_sites/${label}${path}`);
  return { status: res.statusCode, type: String(res.headers["content-type"]), text: await res.body.text() };
}

async function environment(): Promise<string> {
  const p = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "web" });
  return (await api.create<any>(`/v1/projects/${p.id}/environments`, { name: "production" })).id;
}

test("reserving an upload: filename, contentType and sizeBytes rules; the presigned url, method and headers", async () => {
  const bad = await failure(api.create("/v1/static-uploads", { filename: "site.tar.gz", contentType: "application/gzip", sizeBytes: 10 }));
  expect(bad.status).toBe(400);
  expect(bad.messageList.join()).toContain("filename: must end in .zip or .html");
  const noType = await failure(api.create("/v1/static-uploads", { filename: "a.zip", sizeBytes: 10 }));
  expect(noType.messageList.join()).toContain("contentType");
  for (const sizeBytes of [0, -1, 1.5]) {
    const e = await failure(api.create("/v1/static-uploads", { filename: "a.zip", contentType: "application/zip", sizeBytes }));
    expect(e.status).toBe(400);
    expect(e.messageList.join()).toMatch(/sizeBytes: must be a positive|sizeBytes: must be an integer/);
  }
  const big = await failure(api.create("/v1/static-uploads", { filename: "a.zip", contentType: "application/zip", sizeBytes: MAX + 1 }));
  expect(big.messageList.join()).toContain(`sizeBytes: must be at most ${MAX} bytes (64 KiB)`);

  const u = await api.create<any>("/v1/static-uploads", { filename: "a.zip", contentType: "application/zip", sizeBytes: 100 });
  expect(u).toMatchObject({ method: "PUT", maxBytes: MAX, expiresInSeconds: 900 });
  expect(u.uploadId).toMatch(/^[0-9a-f-]{36}$/);
  expect(u.url).toMatch(new RegExp(`^${emu.baseUrl}/_uploads/${u.uploadId}\\?expires=\\d+&signature=[0-9a-f]{32}$`));
  expect(u.headers.map((h: any) => h.name)).toEqual(["Content-Type", "x-upload-signature"]);
  expect((await emu.leftovers()).staticUploads).toBe(1);
});

test("the presigned PUT refuses a wrong signature, a wrong size, too big a body, a bad zip, non-text html, an expired or reused url", async () => {
  const good = zipOf({ "index.html": "<h1>hi</h1>" });
  const u = await reserve(good);
  const headers = Object.fromEntries(u.headers.map((x: any) => [x.name, x.value]));

  expect((await put(u, good, { ...headers, "x-upload-signature": "nope" })).status).toBe(403);
  expect((await put(u, good, { "Content-Type": "application/zip" })).status).toBe(403);
  expect((await put({ ...u, url: u.url.replace(/signature=\w+/, "signature=00") }, good)).status).toBe(403);
  const short = await put(u, good.subarray(1));
  expect(short.status).toBe(400);
  expect(short.body.message).toContain(`were reserved`);
  const tooBig = await put(u, Buffer.alloc(MAX + 1));
  expect(tooBig.status).toBe(413);
  expect(tooBig.body.message).toContain(`maxBytes (${MAX} bytes)`);

  const junk = Buffer.from("this is not a zip archive at all");
  const j = await reserve(junk);
  const notZip = await put(j, junk);
  expect(notZip.status).toBe(400);
  expect(notZip.body.message).toContain("not a readable zip archive");

  const binary = Buffer.from([0x3c, 0xff, 0xfe, 0x00]);
  const h = await reserve(binary, "page.html", "text/html");
  expect((await put(h, binary)).status).toBe(400);

  // The first good PUT succeeds; the same url again is refused as reused.
  expect((await put(u, good)).status).toBe(200);
  const again = await put(u, good);
  expect(again.status).toBe(409);
  expect(again.body.message).toContain("already used");

  const late = await reserve(good);
  await advance(901_000);
  const expired = await put(late, good);
  expect(expired.status).toBe(410);
  expect(expired.body.message).toContain("expired");
});

test("publishing: a new STATIC service and its first deploy in the workspace's static-sites project; an upload publishes once", async () => {
  const uploadId = await uploaded({ "index.html": "<h1>v1</h1>", "about/index.html": "<p>about</p>", "app.js": "console.log(1)" });
  const { site, deploy } = await api.create<any>("/v1/static-sites", { uploadId, name: "docs" });
  expect(site).toMatchObject({ type: "STATIC", isStatic: true, name: "docs", status: "PROVISIONING" });
  expect(deploy).toMatchObject({ serviceId: site.id, status: "QUEUED", trigger: "FIRST_DEPLOY" });
  const env = await api.get<any>(`/v1/environments/${site.environmentId}`);
  expect(env).toMatchObject({ name: "production", project: { name: "static-sites", workspaceId: emu.workspaceId } });

  const twice = await failure(api.create("/v1/static-sites", { uploadId, name: "docs-2" }));
  expect(twice.status).toBe(409);
  expect(twice.messageList.join()).toContain("already published");
  const reserved = await reserve(zipOf({ "a.html": "x" }));
  const notUploaded = await failure(api.create("/v1/static-sites", { uploadId: reserved.uploadId }));
  expect(notUploaded.status).toBe(409);
  expect(notUploaded.messageList.join()).toContain("PUT the file to its url first");
  expect((await failure(api.create("/v1/static-sites", { uploadId: "not-a-uuid" }))).status).toBe(400);

  // A second site lands in the same static-sites project.
  const other = await api.create<any>("/v1/static-sites", { uploadId: await uploaded({ "index.html": "x" }), name: "blog" });
  expect(other.site.environmentId).toBe(site.environmentId);

  // Served once the deploy is live: index, nested index, content types, 404 without spaFallback.
  expect((await fetchSite(`https://${"x"}.cloudplatform.app`)).status).toBe(404);
  await advance(SETTLE);
  const live = await api.get<any>(`/v1/services/${site.id}`);
  expect(live.url).toMatch(/^https:\/\/docs-[0-9a-f]{6}\.cloudplatform\.app$/);
  expect(await fetchSite(live.url)).toMatchObject({ status: 200, text: "<h1>v1</h1>", type: "text/html; charset=utf-8" });
  expect((await fetchSite(live.url, "/about/")).text).toBe("<p>about</p>");
  expect((await fetchSite(live.url, "/about")).text).toBe("<p>about</p>");
  expect(await fetchSite(live.url, "/app.js")).toMatchObject({ status: 200, type: "text/javascript; charset=utf-8" });
  expect((await fetchSite(live.url, "/missing/route")).status).toBe(404);
  expect((await fetchSite(live.url, "/%E0%A4%A")).status).toBe(400);
});

test("a static deploy replaces the content in place: same URL, the new content served once the deploy is live", async () => {
  const envId = await environment();
  const first = await api.create<any>("/v1/static-sites", {
    uploadId: await uploaded({ "home.html": "<h1>v1</h1>" }), environmentId: envId, name: "app", indexPath: "home.html", spaFallback: true,
  });
  await advance(SETTLE);
  const url = (await api.get<any>(`/v1/services/${first.site.id}`)).url;
  expect((await fetchSite(url)).text).toBe("<h1>v1</h1>");
  expect((await fetchSite(url, "/some/client/route")).text).toBe("<h1>v1</h1>");

  const deploy = await api.create<any>(`/v1/services/${first.site.id}/static-deploys`, { uploadId: await uploaded({ "home.html": "<h1>v2</h1>" }) });
  expect(deploy).toMatchObject({ serviceId: first.site.id, status: "QUEUED", trigger: "MANUAL" });
  // The old content keeps serving until the new deploy goes live; settings not sent are kept.
  expect((await fetchSite(url)).text).toBe("<h1>v1</h1>");
  await advance(SETTLE);
  expect((await api.get<any>(`/v1/deploys/${deploy.id}`)).status).toBe("RUNNING");
  const after = await api.get<any>(`/v1/services/${first.site.id}`);
  expect(after.url).toBe(url);
  expect((await fetchSite(url)).text).toBe("<h1>v2</h1>");
  expect((await fetchSite(url, "/deep/link")).text).toBe("<h1>v2</h1>");

  // Turning spaFallback off, and a default index.html.
  await api.create(`/v1/services/${first.site.id}/static-deploys`, {
    uploadId: await uploaded({ "index.html": "<h1>v3</h1>" }), indexPath: "index.html", spaFallback: false,
  });
  await advance(SETTLE);
  expect((await fetchSite(url)).text).toBe("<h1>v3</h1>");
  expect((await fetchSite(url, "/deep/link")).status).toBe(404);
  expect((await api.get<any>(`/v1/services/${first.site.id}`)).build.staticSpa).toBe(false);

  // A rollback to the first deploy serves that deploy's content and settings again.
  await api.create(`/v1/deploys/${first.deploy.id}/rollback`, undefined);
  await advance(SETTLE);
  expect((await fetchSite(url)).text).toBe("<h1>v1</h1>");
  expect((await fetchSite(url, "/deep/link")).text).toBe("<h1>v1</h1>");

  // Only STATIC services take static deploys.
  const web = await api.create<any>(`/v1/environments/${envId}/services`, { name: "api", type: "WEB", image: "nginx:1.27" });
  const notStatic = await failure(api.create(`/v1/services/${web.id}/static-deploys`, { uploadId: await uploaded({ "index.html": "x" }) }));
  expect(notStatic.status).toBe(400);
  expect(notStatic.messageList.join()).toContain("static deploys are for STATIC services");
});

test("an .html upload is the site's index page", async () => {
  const page = Buffer.from("<!doctype html><title>one page</title>");
  const u = await reserve(page, "landing.html", "text/html");
  expect((await put(u, page)).status).toBe(200);
  const { site } = await api.create<any>("/v1/static-sites", { uploadId: u.uploadId });
  expect(site.name).toBe("landing");
  await advance(SETTLE);
  expect((await fetchSite((await api.get<any>(`/v1/services/${site.id}`)).url)).text).toContain("one page");
});

test("scopes: DEPLOYS reserves and deploys to an existing site; creating a site needs PLATFORM_API", async () => {
  const deploys = emu.client(emu.keys.deploysOnly);
  const platform = emu.client(emu.keys.platformOnly);
  const { site } = await platform.create<any>("/v1/static-sites", { uploadId: await uploaded({ "index.html": "p" }, platform) });

  const denied = await failure(deploys.create("/v1/static-sites", { uploadId: await uploaded({ "index.html": "d" }, deploys) }));
  expect(denied.status).toBe(403);
  expect(denied.messageList.join()).toContain("PLATFORM_API");
  const d = await deploys.create<any>(`/v1/services/${site.id}/static-deploys`, { uploadId: await uploaded({ "index.html": "d2" }, deploys) });
  expect(d.serviceId).toBe(site.id);

  const readOnly = await failure(emu.client(emu.keys.readPlatform).create("/v1/static-uploads", { filename: "a.zip", contentType: "application/zip", sizeBytes: 5 }));
  expect(readOnly.status).toBe(403);
  expect(readOnly.messageList.join()).toContain("WRITE + DEPLOYS or PLATFORM_API");
  const mail = await failure(emu.client(emu.keys.mail).create("/v1/static-uploads", { filename: "a.zip", contentType: "application/zip", sizeBytes: 5 }));
  expect(mail.status).toBe(403);
  // Another workspace's key cannot see the site or the upload.
  const stranger = emu.client(emu.keys.otherWorkspace);
  expect((await failure(stranger.create(`/v1/services/${site.id}/static-deploys`, { uploadId: await uploaded({ "index.html": "s" }, stranger) }))).status).toBe(404);
});

test("creates are idempotent: the same key publishes once and replays the first response", async () => {
  const uploadId = await uploaded({ "index.html": "once" });
  const key = "publish-once-1";
  const a = await api.request<any>("POST", "/v1/static-sites", { body: { uploadId, name: "once" }, idempotencyKey: key });
  const b = await api.request<any>("POST", "/v1/static-sites", { body: { uploadId, name: "once" }, idempotencyKey: key });
  expect(a.status).toBe(201);
  expect(b.headers["idempotent-replayed"]).toBe("true");
  expect(b.data.site.id).toBe(a.data.site.id);
  const services = (await emu.control("GET", "/services")).data.filter((s: any) => s.type === "STATIC");
  expect(services).toHaveLength(1);

  const up = await uploaded({ "index.html": "twice" });
  const c = await api.request<any>("POST", `/v1/services/${a.data.site.id}/static-deploys`, { body: { uploadId: up }, idempotencyKey: "dep-1" });
  const d = await api.request<any>("POST", `/v1/services/${a.data.site.id}/static-deploys`, { body: { uploadId: up }, idempotencyKey: "dep-1" });
  expect(c.status).toBe(202);
  expect(d.data.id).toBe(c.data.id);
  expect((await api.get<any>(`/v1/services/${a.data.site.id}/deploys`)).data).toHaveLength(2);
});

test("deleting the service removes its content and uploads; the site stops being served", async () => {
  const envId = await environment();
  const { site } = await api.create<any>("/v1/static-sites", { uploadId: await uploaded({ "index.html": "bye" }), environmentId: envId });
  await api.create(`/v1/services/${site.id}/static-deploys`, { uploadId: await uploaded({ "index.html": "bye2" }) });
  await advance(SETTLE);
  const url = (await api.get<any>(`/v1/services/${site.id}`)).url;
  expect((await fetchSite(url)).status).toBe(200);
  expect(await emu.leftovers()).toMatchObject({ staticUploads: 2, staticContent: 2 });

  await api.delete(`/v1/services/${site.id}`);
  expect((await fetchSite(url)).status).toBe(404);
  const left = await emu.leftovers();
  expect(left.staticUploads).toBeUndefined();
  expect(left.staticContent).toBeUndefined();
  const p = (await api.get<any>(`/v1/environments/${envId}`)).project.id;
  await api.delete(`/v1/projects/${p}`);
  expect(await emu.leftovers()).toEqual({});
});
