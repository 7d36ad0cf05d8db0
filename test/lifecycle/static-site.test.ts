// StaticSite through the real Pulumi CLI: publish a folder and fetch the page from the emulator;
// change a file and the preview shows an update, up deploys it in place on the same URL and the
// page serves the new content; with no change the preview is empty; a rename by hand is drift
// repaired by up; the same stack run from another checkout of the program previews empty;
// destroy leaves nothing.
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { request } from "undici";
import { expectAllGone, expectAllLive, stackResources } from "../support/check-destroy";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, PROGRAMS, testStack } from "../support/stack";
import { openStack, ROOT } from "../../scripts/pulumi-env";

jest.setTimeout(300_000);

let emu: TestEmulator;
let checkouts: string;
beforeAll(async () => {
  // Deploys finish in well under a second.
  emu = await emulator({ settings: { speed: 0.05 } });
  checkouts = mkdtempSync(join(tmpdir(), "static-site-"));
});
afterAll(async () => {
  rmSync(checkouts, { recursive: true, force: true });
  await emu?.close();
});

/** A checkout of the program in its own folder, with this repository's packages. */
function checkout(name: string, from = join(PROGRAMS, "static-site")): string {
  const dir = join(checkouts, name);
  cpSync(from, dir, { recursive: true, filter: (src) => !src.endsWith("node_modules") });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/** The page as the emulator serves it: {baseUrl}/_sites/{first label of the site's host}/... */
async function fetchPage(url: string, path = "/") {
  const res = await request(`${emu.baseUrl}/_sites/${new URL(url).hostname.split(".")[0]}${path}`);
  return { status: res.statusCode, text: await res.body.text() };
}

test("publish a folder, change a file and deploy it in place on the same URL, repair a rename, destroy", async () => {
  const program = checkout("one");
  const siteDir = join(program, "site");
  const s = await testStack(emu, program);
  const api = emu.client();
  try {
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 4 }); // the stack, a project, an environment, the site
    const url = up.outputs.url.value as string;
    const serviceId = up.outputs.serviceId.value as string;
    expect(url).toMatch(/^https:\/\/docs-[0-9a-f]{6}\.cloudplatform\.app$/);
    expect((await api.get<any>(`/v1/deploys/${up.outputs.deployId.value}`)).status).toBe("RUNNING");
    expect((await fetchPage(url)).text).toContain("<h1>Docs v1</h1>");
    expect((await fetchPage(url, "/assets/site.css")).text).toContain("font-family");

    // no change and no drift: the preview is empty, with a refresh too
    await expectNoDrift(s);
    expect(JSON.stringify(await s.stack.exportStack())).not.toContain(checkouts);

    // a changed file: the preview shows one update, up deploys it in place
    writeFileSync(join(siteDir, "index.html"), "<!doctype html><h1>Docs v2</h1>\n");
    expect(changes(await s.stack.preview({ diff: true }))).toEqual({ update: 1 });
    const second = await s.stack.up();
    expect(changes(second)).toEqual({ update: 1 });
    expect(second.outputs.serviceId.value).toBe(serviceId);
    expect(second.outputs.url.value).toBe(url);
    expect(second.outputs.contentHash.value).not.toBe(up.outputs.contentHash.value);
    expect((await fetchPage(url)).text).toContain("<h1>Docs v2</h1>");
    expect((await api.list(`/v1/services/${serviceId}/deploys`))).toHaveLength(2);

    // a rename behind Pulumi's back is found by refresh and put back by up, without a deploy
    await api.patch(`/v1/services/${serviceId}`, { name: "renamed-by-hand" });
    expect(changes(await s.stack.preview({ refresh: true }))).toEqual({ update: 1 });
    expect(changes(await s.stack.up({ refresh: true }))).toEqual({ update: 1 });
    expect((await api.get<any>(`/v1/services/${serviceId}`)).name).toBe("docs");
    expect((await api.list(`/v1/services/${serviceId}/deploys`))).toHaveLength(2);

    await expectNoDrift(s);

    // another checkout of the program (another folder, the same stack) previews empty
    const other = checkout("two", program);
    const elsewhere = await openStack({ programDir: other, stackName: s.stack.name, stateDir: dirname(s.backendDir), env: { CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey } });
    expect(changes(await elsewhere.stack.preview({ refresh: true, expectNoChanges: true }))).toEqual({});

    const last = await stackResources(s.stack);
    await expectAllLive(emu, last);
    await s.stack.destroy();
    await expectAllGone(emu, last);
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
