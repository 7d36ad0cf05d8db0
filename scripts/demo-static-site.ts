// The static site: a local folder published as a site. up waits for the deploy; the page is fetched
// from the emulator; a changed file shows in the preview and is deployed in place on the same URL;
// a rename made by hand is found and repaired.
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DemoKit } from "./demo-kit";
import { ROOT } from "./pulumi-env";

// The AWS SDK warns that its releases after January 2027 will need Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export async function staticSiteDemo(kit: DemoKit): Promise<void> {
  kit.title("static-site: a local folder published as a site, updated in place");
  // A copy of the example's folder, so the demo can change a file without touching the repository.
  const tmp = mkdtempSync(join(tmpdir(), "static-site-demo-"));
  const siteDir = join(tmp, "site");
  cpSync(join(ROOT, "examples", "static-site", "site"), siteDir, { recursive: true });
  const domain = "example-site.test";
  await fetch(`${kit.emu.baseUrl}/_emulator/dns/delegations`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ domain }),
  });
  kit.say(`the registrar points ${domain}'s nameservers at the platform, so the site can have www.${domain}`);
  const s = await kit.example("static-site", { siteDir, domain });
  const page = async (url: string) => {
    const label = new URL(url).hostname.split(".")[0];
    const res = await fetch(`${kit.emu.baseUrl}/_sites/${label}/`);
    const h1 = /<h1>(.*?)<\/h1>/.exec(await res.text())?.[1];
    return `${res.status} "${h1 ?? "?"}" (served by the emulator at ${kit.emu.baseUrl}/_sites/${label}/)`;
  };
  try {
    kit.say("pulumi up (zips the folder, uploads it, publishes it and waits for the deploy to be RUNNING)");
    const up = await s.stack.up({ onOutput: s.print });
    const url = up.outputs.url.value as string;
    const siteId = up.outputs.siteId.value as string;
    kit.say(`url: ${url}, content ${up.outputs.contentHash.value}`);
    kit.say(`custom domain: ${up.outputs.customDomain.value}; assets bucket ${up.outputs.assetsBucket.value} at ${up.outputs.assetsUrl.value}`);
    kit.say(`GET / -> ${await page(url)}`);

    // The bucket speaks S3: its endpoint and region, with a storage access key, make an AWS SDK client.
    const key = kit.emu.storageKeys.find((k) => k.workspaceId === kit.emu.workspaceId)!;
    const s3 = new S3Client({
      endpoint: up.outputs.assetsEndpoint.value, region: up.outputs.assetsRegion.value, forcePathStyle: true,
      credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secret },
    });
    await s3.send(new PutObjectCommand({ Bucket: up.outputs.assetsBucket.value, Key: "img/logo.svg", Body: "<svg xmlns='http://www.w3.org/2000/svg'/>", ContentType: "image/svg+xml" }));
    s3.destroy();
    const logo = await fetch(`${up.outputs.assetsUrl.value}/img/logo.svg`, { headers: { origin: `https://www.${domain}` } });
    kit.say(`PutObject img/logo.svg with the AWS SDK at ${up.outputs.assetsEndpoint.value}; GET it without a key -> ${logo.status} ${logo.headers.get("content-type")}, CORS allows ${logo.headers.get("access-control-allow-origin")}`);

    kit.say("pulumi preview (expect no changes: the content hash is the same)");
    await s.stack.preview({ onOutput: s.print, expectNoChanges: true });

    kit.say("edit index.html: the heading becomes 'Acme: now open'");
    const index = join(siteDir, "index.html");
    writeFileSync(index, readFileSync(index, "utf8").replace("Acme: shipping soon", "Acme: now open"));
    kit.say("pulumi preview --diff (one update: contentHash changed)");
    await s.stack.preview({ diff: true, onOutput: s.print });
    kit.say("pulumi up (a static deploy in place, on the same URL)");
    const second = await s.stack.up({ onOutput: s.print });
    kit.say(`url: ${second.outputs.url.value} (${second.outputs.url.value === url ? "unchanged" : "changed!"}), deploy ${second.outputs.deployId.value}`);
    kit.say(`GET / -> ${await page(url)}`);

    kit.say("behind Pulumi's back: rename the site's service");
    await kit.api.patch(`/v1/services/${siteId}`, { name: "renamed-by-hand" });
    kit.say("pulumi preview --refresh --diff (the name shows as drift)");
    await s.stack.preview({ refresh: true, diff: true, onOutput: s.print });
    kit.say("pulumi up --refresh (puts the name back; no new deploy)");
    await s.stack.up({ refresh: true, onOutput: s.print });

    kit.say("pulumi destroy");
    await s.stack.destroy({ onOutput: s.print });
  } finally {
    await s.dispose();
    await fetch(`${kit.emu.baseUrl}/_emulator/dns/delegations/${domain}`, { method: "DELETE", headers: { "content-type": "application/json" } });
    rmSync(tmp, { recursive: true, force: true });
  }
}
