// Makes the dashboard screenshots in docs/ (docs/dashboard-*.png): an in-process emulator, the
// workspace of scripts/dashboard-kit.ts, and Debian's chromium through playwright-core.
//   make build && node dist/scripts/dashboard-screenshots.js [outDir] [--all]
// --all also captures every other page (for a review, not for docs/). The images use the fonts
// installed on the machine (Debian's fonts-inter gives those committed).
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { startEmulator } from "../emulator";
import { api, launchChromium, populate } from "./dashboard-kit";

const args = process.argv.slice(2);
const ALL = args.includes("--all");
const OUT = resolve(args.find((a) => !a.startsWith("--")) ?? join(__dirname, "..", "..", "docs"));

async function main(): Promise<void> {
  const emu = await startEmulator({ settings: { speed: 1 } });
  const errors: string[] = [];
  try {
    const target = { baseUrl: emu.baseUrl, workspaceId: emu.workspaceId, apiKey: emu.apiKey, keys: emu.keys, testMailDomain: emu.testMailDomain };
    const made = await populate(target);
    // A deploy under way and a few failing calls, so the pages look like a working day.
    const call = api(target);
    const deploy = await call("POST", `/v1/services/${made.apiId}/deploys`);
    await fetch(`${emu.baseUrl}/v1/projects/${made.projectId}`, { headers: { authorization: "Bearer svc_live_wrong" } });
    await fetch(`${emu.baseUrl}/v1/projects/00000000-0000-4000-8000-000000000000`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
    const { storageId } = await bucketId(emu.baseUrl, emu.workspaceId, made.bucketName);
    const webDeploy = ((await (await fetch(`${emu.baseUrl}/_emulator/ui/api/services/${made.webId}`)).json()) as { deploys: { id: string }[] }).deploys[0].id;

    const context = await launchChromium({ width: 1440, height: 900 });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      mkdirSync(OUT, { recursive: true });
      const base = `${emu.baseUrl}/_emulator/ui/#/w/${emu.workspaceId}`;
      const shots: [string, string, string][] = [
        ["overview", `${base}`, "[data-stat=projects]"],
        ["projects", `${base}/projects`, "[data-service]"],
        ["deploy-logs", `${base}/deploys/${webDeploy}`, "[data-log] .line"],
        ["mail", `${base}/mail`, "[data-email]"],
        ["site", `${base}/sites/${made.siteId}`, "iframe"],
        ["requests", `${base}/requests`, "[data-seq]"],
      ];
      if (ALL) {
        shots.push(
          ["service", `${base}/services/${made.webId}`, "[data-deploy]"],
          ["deploy-building", `${base}/deploys/${deploy.id}`, "[data-log] .line"],
          ["cron", `${base}/services/${made.cronId}`, "[data-run]"],
          ["run", `${base}/runs/${made.cronRunId}`, "[data-log] .line"],
          ["environment", `${base}/environments/${made.environmentId}`, "[data-service]"],
          ["dns", `${base}/dns`, "[data-record]"],
          ["zone", `${base}/dns/${made.zoneId}`, "[data-record]"],
          ["email", `${base}/emails/${made.emailIds[0]}`, "iframe"],
          ["storage", `${base}/storage`, "[data-bucket]"],
          ["bucket", `${base}/buckets/${storageId}`, "[data-object]"],
          ["domains", `${base}/domains`, "[data-domain]"],
          ["sites", `${base}/sites`, "[data-site]"],
        );
      }
      for (const [name, url, ready] of shots) {
        await page.goto(url);
        await page.waitForSelector(ready);
        await settle(page);
        await page.screenshot({ path: join(OUT, `dashboard-${name}.png`) });
        process.stdout.write(`${join(OUT, `dashboard-${name}.png`)}\n`);
      }
    } finally {
      await context.close();
    }
  } finally {
    await emu.close();
  }
  if (errors.length) throw new Error(`the page reported errors:\n${errors.join("\n")}`);
}

async function bucketId(baseUrl: string, workspaceId: string, name: string): Promise<{ storageId: string }> {
  const res = await fetch(`${baseUrl}/_emulator/ui/api/workspaces/${workspaceId}/storage`);
  const body = (await res.json()) as { buckets: { id: string; name: string }[] };
  return { storageId: body.buckets.find((b) => b.name === name)!.id };
}

/** Frames loaded and one refresh done, so the picture is the steady page. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await page.waitForTimeout(1_800);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
