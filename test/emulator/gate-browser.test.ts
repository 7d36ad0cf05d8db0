// The gate against a real browser (Debian's chromium through playwright-core, no browser download):
// a page on another site (evil.example, resolved to loopback by the browser as a DNS name would be)
// sends what the attack review sent: no-cors POSTs and a form post to every spelling of the reset,
// cross-site reads of the storage keys and the dashboard's JSON, and a frame of the dashboard. The
// emulator answers each with 4xx (what the browser saw on the wire is read from its own events),
// nothing is wiped, and the dashboard is not rendered in the frame. Once more with the developer
// signed in to a shared emulator's dashboard: the cookie stays home.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page, Response } from "playwright-core";
import { launchChromium } from "../../scripts/dashboard-kit";
import { emulator, type TestEmulator } from "../support/emulator";

jest.setTimeout(180_000);

const TOKEN = "gate-browser-token-0123456789abcdef";
const EVIL = "evil.example";
let open: TestEmulator;
let shared: TestEmulator;
let context: BrowserContext;
let page: Page;
let server: Server;
let evilOrigin: string;
/** The attack page the evil site serves next. */
let attack = "";

beforeAll(async () => {
  [open, shared] = await Promise.all([emulator({ settings: { speed: 0 } }), emulator({ settings: { speed: 0 }, controlToken: TOKEN })]);
  for (const e of [open, shared]) await e.client().post(`/v1/workspaces/${e.workspaceId}/projects`, { name: "kept" });
  server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(attack));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  evilOrigin = `http://${EVIL}:${(server.address() as AddressInfo).port}`;
  // The browser resolves the attacker's name to loopback, as a rebinding or a local page would.
  context = await launchChromium({ width: 1024, height: 700 }, 1, [`--host-resolver-rules=MAP ${EVIL} 127.0.0.1`]);
  page = context.pages()[0] ?? (await context.newPage());
});
afterAll(async () => {
  await context?.close();
  await new Promise((ok) => server?.close(ok));
  for (const e of [open, shared]) {
    await e?.control("POST", "/reset");
    await e?.close();
  }
});

/** The targets the review reached the reset with. */
const RESETS = ["/%5Femulator/reset", "/%5femulator/reset", "/_emulato%72/reset", "/_emulator/reset"];
const READS = ["/%5Femulator/storage/access-keys", "/_emulator/storage/access-keys", "/_emulator/ui/%61pi/summary", "/_emulator/ui/%61pi/requests"];

/** A page on evil.example that sends every request, then says it is done; what the browser got back for each, by URL. */
async function runAttack(base: string): Promise<Map<string, number>> {
  const posts = RESETS.map((p) => `${base}${p}`);
  const reads = READS.map((p) => `${base}${p}`);
  attack = `<!doctype html><title>evil</title>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="${base}/%5Femulator/reset" enctype="text/plain" target="sink"><input name='{"a":"' value='"}'></form>
<script>
(async () => {
  for (const url of ${JSON.stringify(posts)}) {
    await fetch(url, { method: "POST", mode: "no-cors" }).catch(() => {});
    await fetch(url, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: "{}" }).catch(() => {});
  }
  for (const url of ${JSON.stringify(reads)}) {
    await fetch(url, { mode: "no-cors", credentials: "include" }).catch(() => {});
    await fetch(url, { credentials: "include" }).catch(() => {});
  }
  document.getElementById("form").submit();
  document.title = "sent";
})();
</script>`;
  const seen = new Map<string, number>();
  const onResponse = (r: Response) => {
    if (r.url().startsWith(base)) seen.set(`${r.request().method()} ${r.url().slice(base.length)}`, r.status());
  };
  page.on("response", onResponse);
  try {
    const form = page.waitForResponse((r) => r.request().method() === "POST" && r.request().resourceType() === "document" && r.url().startsWith(base));
    await page.goto(`${evilOrigin}/`);
    await page.waitForFunction("document.title === 'sent'");
    seen.set("form POST", (await form).status());
  } finally {
    page.off("response", onResponse);
  }
  return seen;
}

test("a page on another site cannot reset the emulator or read it by any spelling; each answer is 4xx and nothing is wiped", async () => {
  const seen = await runAttack(open.baseUrl);
  for (const p of RESETS) expect([p, seen.get(`POST ${p}`)]).toEqual([p, expect.any(Number)]);
  for (const p of READS) expect([p, seen.get(`GET ${p}`)]).toEqual([p, expect.any(Number)]);
  expect([...seen.entries()].filter(([, s]) => s < 400 || s >= 500)).toEqual([]);
  // A no-cors POST has no JSON content type; the reads come from another site.
  expect(seen.get("POST /%5Femulator/reset")).toBe(415);
  expect(seen.get("GET /%5Femulator/storage/access-keys")).toBe(403);
  expect(seen.get("form POST")).toBe(415);
  expect((await open.leftovers()).projects).toBe(1);
});

test("signed in to a shared emulator's dashboard, the developer's browser still cannot be made to reset it or read its keys", async () => {
  await page.goto(`${shared.baseUrl}/_emulator/ui/sign-in.html`);
  await page.fill("#token", TOKEN);
  await page.click("button[type=submit]");
  await page.waitForSelector("[data-live=live]");
  expect(await context.cookies(`${shared.baseUrl}/_emulator/ui/`)).toHaveLength(1);

  const seen = await runAttack(shared.baseUrl);
  expect(seen.size).toBe(RESETS.length + READS.length + 1);
  expect([...seen.entries()].filter(([, s]) => s < 400 || s >= 500)).toEqual([]);
  expect((await shared.leftovers()).projects).toBe(1);
});

test("another site cannot frame the dashboard: the browser refuses to render it", async () => {
  attack = `<!doctype html><title>framing</title><iframe id="f" src="${open.baseUrl}/_emulator/ui/" width="800" height="600"></iframe>`;
  const framed = page.waitForResponse((r) => r.url() === `${open.baseUrl}/_emulator/ui/`);
  const refused = page.waitForEvent("console", { predicate: (m) => /frame-ancestors|X-Frame-Options/i.test(m.text()) });
  await page.goto(`${evilOrigin}/framing`);
  expect((await framed).status()).toBe(200);
  // Chromium names whichever of the two headers it checked first; either refusal is ours.
  expect((await refused).text()).toMatch(/frame-ancestors 'none'|X-Frame-Options' to 'deny'/);
  // Nothing of the dashboard is in the frame.
  const frame = page.frames().find((f) => f !== page.mainFrame());
  expect(frame).toBeDefined();
  expect(await frame!.evaluate("document.title").catch(() => "")).not.toBe("cloudplatform emulator");
});
