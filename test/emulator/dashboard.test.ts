// The emulator's dashboard in a real browser (Debian's chromium through playwright-core, no browser
// download): a workspace made through the API shows in every section, the page refreshes itself
// without losing the user's place, the site frame loads the site, and no secret reaches the page.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { packEmulator } from "../../scripts/pack";
import { ROOT } from "../../scripts/pulumi-env";
import { api, launchChromium, type Made, populate, type Target } from "../../scripts/dashboard-kit";
import { emulator, type TestEmulator } from "../support/emulator";

jest.setTimeout(120_000);

let emu: TestEmulator;
let made: Made;
let context: BrowserContext;
let page: Page;
let target: Target;
const errors: string[] = [];
/** Everything the page was sent: documents, scripts, JSON, frames. */
const received: string[] = [];
/** The page's HTML as each section showed it. */
const shown: string[] = [];

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  target = { baseUrl: emu.baseUrl, workspaceId: emu.workspaceId, apiKey: emu.apiKey, keys: emu.keys, testMailDomain: emu.testMailDomain };
  made = await populate(target);
  context = await launchChromium({ width: 1280, height: 800 });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("response", async (r) => {
    const body = await r.text().catch(() => "");
    received.push(body);
  });
});
afterAll(async () => {
  await context?.close();
  await emu?.close();
});

const ws = () => `${emu.baseUrl}/_emulator/ui/#/w/${emu.workspaceId}`;
/** Opens a section and waits until it shows `ready`; keeps its HTML for the secret check. */
async function open(path: string, ready: string): Promise<void> {
  await page.goto(`${ws()}${path}`);
  await page.waitForSelector(ready);
  shown.push(await page.content());
}
const text = (selector: string) => page.locator(selector).allInnerTexts().then((t) => t.join("\n"));
const dashboardJson = async (path: string) => (await fetch(`${emu.baseUrl}/_emulator/ui/api/${path}`)).json() as Promise<any>;

test("every section shows what the API made, with links from project to logs", async () => {
  await open("", "[data-stat=projects]");
  expect(await text("[data-stat]")).toMatch(/Projects\s+2\s+3 environments/);
  expect(await text("[data-stat=dns]")).toMatch(/DNS zones\s+1\s+7 records/);
  expect(await text("[data-nav=storage] .count")).toBe("2");

  // project -> environment -> service -> deploy -> logs, by clicking
  await open("/projects", `[data-service="${made.webId}"]`);
  expect(await text(`[data-service="${made.webId}"]`)).toMatch(/web\s+WEB[\s\S]*active[\s\S]*healthy[\s\S]*#1\s+running/);
  expect(await text("[data-service]")).toMatch(/worker\s+WEB[\s\S]*error[\s\S]*failed/);
  await page.click(`[data-environment="${made.environmentId}"] .env-head a`);
  await page.waitForSelector(`h1:has-text("prod")`);
  await page.click(`[data-service="${made.webId}"] a`);
  await page.waitForSelector("[data-deploy]");
  expect(await text("[data-card=env]")).toMatch(/PAYMENTS_TOKEN\s+•+ hidden\s+secret/);
  expect(await text("[data-card=env]")).toContain("NODE_ENV\tproduction");
  await page.click("[data-deploy] a");
  await page.waitForSelector("[data-log] .line");
  expect(await text("[data-log]")).toContain("Listening on port 8080");
  expect(await text("[data-log]")).toMatch(/Deploy live at https:\/\/web-/);
  shown.push(await page.content());

  // cron runs and their logs
  await open(`/services/${made.cronId}`, `[data-run="${made.cronRunId}"]`);
  expect(await text(`[data-run="${made.cronRunId}"]`)).toMatch(/succeeded\s+manual\s+0/);
  await open(`/runs/${made.cronRunId}`, "[data-log] .line");
  expect(await text("[data-log]")).toContain("Starting: node report.js --since yesterday");

  await open("/dns", "[data-record]");
  expect(await text(`[data-card="${made.zoneId}"]`)).toMatch(/acme-shop\.test\s+published/);
  expect(await text("[data-record]")).toMatch(/www\s+CNAME\s+landing-/);

  await open("/mail", "[data-email]");
  expect(await text(`[data-card="${made.mailDomainId}"]`)).toMatch(/mail\.acme-shop\.test\s+verified/);
  expect(await text("[data-mail-record]")).toMatch(/DKIM\s+TXT[\s\S]*found/);
  expect(await text("[data-card=outbox]")).toMatch(/Your order #1042 has shipped\s+delivered/);
  await page.click(`[data-email="${made.emailIds[0]}"] a`);
  const mailFrame = page.frameLocator("iframe.mail-frame");
  await expect(mailFrame.locator("h2").innerText()).resolves.toBe("Your order #1042 has shipped");
  shown.push(await page.content());

  await open("/storage", "[data-bucket]");
  expect(await text("[data-bucket]")).toMatch(/acme-uploads\s+af-west-1\s+private\s+4/);
  await page.click("[data-bucket] a:has-text('acme-uploads')");
  await page.waitForSelector("[data-object]");
  expect(await text("[data-card=objects]")).toContain("invoices/2025/INV-1042.txt");
  await page.fill("[data-prefix]", "exports/");
  await page.waitForSelector(`[data-object="README.txt"]`, { state: "detached" });
  expect(await text("[data-object]")).toContain("exports/orders-2025-03.csv");

  await open("/domains", "[data-domain]");
  expect(await text(`[data-domain="${made.customDomain}"]`)).toMatch(/www\.acme-shop\.test\s+landing\s+active/);

  // the static site, opened in a frame from the emulator's own /_sites/
  await open(`/sites/${made.siteId}`, "[data-card=preview] iframe");
  const frame = page.frameLocator("[data-card=preview] iframe");
  await expect(frame.locator("h1").innerText()).resolves.toBe("The spring collection is here");
  expect(await page.getAttribute("[data-card=preview] iframe", "src")).toBe(made.sitePath);

  await open("/requests", "[data-seq]");
  expect(await text(".reqs")).toMatch(/POST\s+201\s+\/v1\/workspaces\/[^/]+\/projects\s+[\d.]+ ms\s+svc_live/);
  expect(errors).toEqual([]);
});

test("the page refreshes itself, keeping the user's place: typed filter, focus, frames, scroll", async () => {
  const call = api(target);
  // A record added through the API shows on the open DNS page without a reload.
  await open("/dns", "[data-record]");
  await page.evaluate("window.notReloaded = true");
  await call("POST", `/v1/dns-zones/${made.zoneId}/records`, { name: "shop", type: "A", content: "203.0.113.7" });
  await page.waitForSelector("[data-record] >> text=203.0.113.7", { timeout: 10_000 });
  expect(await page.evaluate("window.notReloaded")).toBe(true);

  // The request log: a filter being typed keeps its text and focus while new rows arrive.
  await open("/requests", "[data-seq]");
  await page.fill("[data-filter]", "widgets");
  await page.focus("[data-filter]");
  await fetch(`${emu.baseUrl}/v1/widgets`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
  await page.waitForSelector(`td.path:text-is("/v1/widgets")`, { timeout: 10_000 });
  expect(await page.inputValue("[data-filter]")).toBe("widgets");
  expect(await page.evaluate("document.activeElement.dataset.filter !== undefined")).toBe(true);
  expect(await text(".reqs tbody")).toMatch(/GET\s+404\s+\/v1\/widgets/);

  // A refresh does not reload the site's frame (the mark set inside it stays) nor move the page.
  await page.setViewportSize({ width: 1280, height: 400 });
  await open(`/sites/${made.siteId}`, "[data-card=preview] iframe");
  const frame = page.frames().find((f) => f.url().endsWith(made.sitePath))!;
  await frame.waitForSelector("h1");
  await frame.evaluate("window.mark = 'still here'");
  await page.evaluate("window.scrollTo(0, 300)");
  await redrawn(); // the clock in the sidebar moved: the page was drawn again
  await redrawn();
  expect(await frame.evaluate("window.mark")).toBe("still here");
  expect(await page.evaluate("window.scrollY")).toBe(300);

  // A newer live deploy of the site gets a fresh frame with the new content.
  const zip = await siteZip("<h1>Summer sale</h1>");
  const upload = await call("POST", "/v1/static-uploads", { filename: "site.zip", contentType: "application/zip", sizeBytes: zip.length });
  await fetch(upload.url, { method: "PUT", headers: Object.fromEntries(upload.headers.map((h: any) => [h.name, h.value])), body: zip });
  await call("POST", `/v1/services/${made.siteId}/static-deploys`, { uploadId: upload.uploadId });
  await page.frameLocator("[data-card=preview] iframe").locator("h1:text-is('Summer sale')").waitFor({ timeout: 10_000 });
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(errors).toEqual([]);
});

test("no key or secret reaches the page: not in what it shows, not in what it fetched", async () => {
  const secrets = [
    emu.apiKey, ...Object.values(emu.keys), ...emu.storageKeys.map((k) => k.secret), ...made.secrets,
    "emulator-password",
  ];
  expect(secrets.length).toBeGreaterThan(15);
  const everything = [...shown, ...received].join("\n");
  expect(shown.length).toBeGreaterThan(10);
  for (const s of secrets) expect(everything.includes(s) ? s : "absent").toBe("absent");
  // The request log: no Authorization value, and the presigned upload's signature is masked.
  const log = JSON.stringify(await dashboardJson("requests"));
  expect(log).not.toMatch(/Bearer|svc_live_[A-Za-z0-9]/);
  expect(log).toMatch(/\/_uploads\/[0-9a-f-]+\?expires=\d+&signature=\*\*\*/);
});

test("the JSON routes: 404 for what is gone, 400 naming a bad query, downloads never rendered", async () => {
  const gone = await fetch(`${emu.baseUrl}/_emulator/ui/api/services/00000000-0000-4000-8000-000000000000`);
  expect(gone.status).toBe(404);
  expect(await gone.json()).toEqual({ statusCode: 404, message: "Service 00000000-0000-4000-8000-000000000000 not found", error: "Not Found" });
  const bad = await fetch(`${emu.baseUrl}/_emulator/ui/api/requests?after=-1`);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as any).message).toEqual(["after: must be 0 or more"]);
  expect((await fetch(`${emu.baseUrl}/_emulator/ui/vendor/lit-html/../../package.json`)).status).toBe(404);

  // An open dashboard never takes a fault a test injected for the API (control routes are exempt).
  await emu.control("POST", "/faults", { kind: "status", status: 503, count: 1 });
  expect((await fetch(`${emu.baseUrl}/_emulator/ui/api/summary`)).status).toBe(200);
  expect((await fetch(`${emu.baseUrl}/_emulator/ui/`)).status).toBe(200);
  expect((await fetch(`${emu.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${emu.apiKey}` } })).status).toBe(503);
  await emu.control("DELETE", "/faults");

  const storage = await dashboardJson(`workspaces/${emu.workspaceId}/storage`);
  const bucket = storage.buckets.find((b: any) => b.name === made.bucketName);
  const file = await fetch(`${emu.baseUrl}/_emulator/ui/api/buckets/${bucket.id}/object?key=${encodeURIComponent("README.txt")}`);
  expect(file.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''README.txt");
  expect(file.headers.get("content-security-policy")).toBe("sandbox");
  expect(await file.text()).toBe("Uploads from the storefront.\n");
});

test("the page ships: the emulator's package holds its files, and the built emulator serves them", async () => {
  const out = mkdtempSync(join(tmpdir(), "cloudplatform-dashboard-pack-"));
  let files: string[];
  try {
    const tarball = packEmulator(out);
    files = execFileSync("tar", ["tzf", tarball]).toString().trim().split("\n").map((f) => f.replace(/^package\//, ""));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  for (const f of ["index.html", "app.js", "kit.js", "style.css", "pages-infra.js", "pages-network.js", "pages-storage.js", "pages-requests.js"]) {
    expect(files).toContain(`dist/emulator/dashboard/ui/${f}`);
  }
  expect(files.filter((f: string) => f.endsWith(".png"))).toEqual([]); // the README's screenshots stay in the repository
  const pkg = require(`${ROOT}/packages/emulator/package.json`);
  expect(Object.keys(pkg.dependencies)).toContain("lit-html");

  // The compiled emulator (what the package runs) finds the files beside it and lit-html in node_modules.
  const { startEmulator } = require(`${ROOT}/dist/emulator`) as typeof import("../../emulator");
  const built = await startEmulator();
  try {
    for (const [path, type] of [["/", "text/html"], ["/app.js", "text/javascript"], ["/vendor/lit-html/lit-html.js", "text/javascript"], ["/vendor/lit-html/directives/keyed.js", "text/javascript"]]) {
      const res = await fetch(`${built.baseUrl}/_emulator/ui${path}`);
      expect([path, res.status, res.headers.get("content-type")?.split(";")[0]]).toEqual([path, 200, type]);
    }
  } finally {
    await built.close();
  }
});

/** Waits until the page has been drawn again (the emulator clock it shows, to the second, moves). */
async function redrawn(): Promise<void> {
  const before = await text(".side-foot");
  for (const end = Date.now() + 15_000; Date.now() < end; await page.waitForTimeout(250)) {
    if ((await text(".side-foot")) !== before) return;
  }
  throw new Error("the page did not refresh within 15 s");
}

async function siteZip(html: string): Promise<Buffer> {
  const { strToU8, zipSync } = await import("fflate");
  return Buffer.from(zipSync({ "index.html": strToU8(html) }));
}
