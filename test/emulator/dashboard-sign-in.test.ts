// The dashboard of an emulator shared with a control token, in a real browser (Debian's chromium
// through playwright-core): a visitor is sent to sign in, a wrong token is refused on the page, the
// right one opens the dashboard with an HttpOnly, SameSite=Strict cookie that never holds the token.
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../../scripts/dashboard-kit";
import { emulator, type TestEmulator } from "../support/emulator";

jest.setTimeout(120_000);

const TOKEN = "dashboard-token-0123456789abcdef";
let emu: TestEmulator;
let context: BrowserContext;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 }, controlToken: TOKEN });
  context = await launchChromium({ width: 1280, height: 800 });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => errors.push(e.message));
});
afterAll(async () => {
  await context?.close();
  await emu?.close();
});

test("sign in with the control token, then the dashboard works; the cookie is HttpOnly and SameSite=Strict", async () => {
  await page.goto(`${emu.baseUrl}/_emulator/ui/#/w/${emu.workspaceId}/storage`);
  await page.waitForSelector("#sign-in");
  expect(new URL(page.url()).pathname).toBe("/_emulator/ui/sign-in.html");

  await page.fill("#token", "not-the-token");
  await page.click("button[type=submit]");
  await page.waitForSelector("#error:not([hidden])");
  expect(await page.textContent("#error")).toMatch(/not this emulator's control token/);

  await page.fill("#token", TOKEN);
  await page.click("button[type=submit]");
  // Back where the visitor was going, with the page's data (its JSON needs the cookie).
  await page.waitForSelector("[data-nav=storage].on");
  await page.waitForSelector("[data-live=live]");
  expect(new URL(page.url()).hash).toBe(`#/w/${emu.workspaceId}/storage`);

  const cookies = await context.cookies(`${emu.baseUrl}/_emulator/ui/`);
  expect(cookies).toEqual([expect.objectContaining({ httpOnly: true, sameSite: "Strict", path: "/_emulator" })]);
  expect(cookies[0].value).not.toContain(TOKEN);
  // A script on the page cannot read it.
  expect(await page.evaluate("document.cookie")).toBe("");
  expect(errors).toEqual([]);
});
