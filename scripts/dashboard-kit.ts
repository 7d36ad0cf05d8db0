// What the dashboard's test and its screenshot script share: Debian's chromium started the way
// the project runs it (no browser download), and a workspace worth looking at, made through the
// public API as a user's stack would make it: projects and environments, services (one failing, a
// cron job, a database), a verified DNS zone, a verified mail domain with sent email, buckets with
// objects, a static site and a custom domain on it.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync",
];

/** Chromium with a fresh profile directory, removed on close; `args` add to the project's flags. */
export async function launchChromium(viewport = { width: 1440, height: 900 }, deviceScaleFactor = 1, args: string[] = []): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), "dashboard-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS, ...args], viewport, deviceScaleFactor,
  });
  // The profile goes once the browser has exited (close() waits for that; the "close" event does not).
  const close = context.close.bind(context);
  context.close = async (options) => {
    await close(options);
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  return context;
}

export interface Target {
  baseUrl: string;
  workspaceId: string;
  apiKey: string;
  keys: Record<string, string>;
  testMailDomain: string;
}

export interface Made {
  projectId: string;
  environmentId: string;
  webId: string;
  cronId: string;
  cronRunId: string;
  zoneId: string;
  mailDomainId: string;
  emailIds: string[];
  apiId: string;
  bucketName: string;
  siteId: string;
  sitePath: string;
  customDomain: string;
  /** Values that must never appear in the dashboard: the secret env var, the secret file, the database password. */
  secrets: string[];
}

type Json = any;

/** JSON calls to `base`: a failed answer throws with its status and body. */
function caller(base: string, headers: Record<string, string>, what: string) {
  return async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(base + path, {
      method,
      headers: { ...headers, ...(body === undefined && method === "GET" ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${what}${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

export const api = (t: Target, key = t.apiKey) => caller(t.baseUrl, { authorization: `Bearer ${key}` }, "");
const control = (t: Target) => caller(`${t.baseUrl}/_emulator`, {}, "control ");

const LANDING = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme Outdoor: spring collection</title>
<link rel="stylesheet" href="style.css"></head>
<body><header><b>Acme Outdoor</b><nav><a href="#">Shop</a><a href="#">Journal</a><a href="#">Stores</a></nav></header>
<main><p class="kicker">New season</p><h1>The spring collection is here</h1>
<p>Lightweight shells, trail runners and packs, tested on three continents.</p><a class="cta" href="#">Shop the collection</a></main>
<footer>Served by the cloudplatform emulator</footer></body></html>`;

const LANDING_CSS = `body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#14213d;background:linear-gradient(160deg,#fef6e4 0%,#f3d2c1 60%,#e8a598 100%);min-height:100vh}
header{display:flex;justify-content:space-between;align-items:center;padding:22px 48px;font-size:18px}
nav a{margin-left:26px;color:#14213d;text-decoration:none;font-size:15px}
main{padding:70px 48px 40px;max-width:720px}.kicker{text-transform:uppercase;letter-spacing:.18em;font-size:13px;color:#9c4a3c;margin:0}
h1{font-size:52px;line-height:1.05;margin:14px 0 18px}main p{font-size:19px;color:#3d405b}
.cta{display:inline-block;margin-top:16px;background:#14213d;color:#fff;padding:13px 26px;border-radius:30px;text-decoration:none}
footer{padding:24px 48px;color:#7a6f6a;font-size:13px}`;

/** Makes the workspace; the clock is moved forward so lifecycles settle at any `--speed`. */
export async function populate(t: Target): Promise<Made> {
  const call = api(t);
  const ctl = control(t);
  const ws = t.workspaceId;
  const secretToken = `tok_${randomBytes(12).toString("hex")}`;
  const secretFile = `-----BEGIN PRIVATE KEY-----\n${randomBytes(24).toString("base64")}\n-----END PRIVATE KEY-----`;
  const dbPassword = `pw-${randomBytes(12).toString("hex")}`;

  // Projects, environments, services.
  const shop = await call("POST", `/v1/workspaces/${ws}/projects`, { name: "storefront", description: "Customer-facing shop" });
  const prod = await call("POST", `/v1/projects/${shop.id}/environments`, { name: "prod" });
  const dev = await call("POST", `/v1/projects/${shop.id}/environments`, { name: "dev" });
  const web = await call("POST", `/v1/environments/${prod.id}/services`, {
    name: "web", type: "WEB", tier: "STARTER", image: "ghcr.io/acme/storefront:1.4.2", port: 8080, healthCheckPath: "/healthz",
    envVars: [{ key: "NODE_ENV", value: "production" }, { key: "PAYMENTS_TOKEN", value: secretToken, secret: true }],
    secretFiles: [{ path: "/etc/storefront/signing-key.pem", content: secretFile }],
  });
  const apiService = await call("POST", `/v1/environments/${prod.id}/services`, {
    name: "api", type: "WEB", tier: "STANDARD", sourceType: "PUBLIC_GIT", gitUrl: "https://git.example.test/acme/storefront-api.git", branch: "main",
    buildCommand: "npm ci && npm run build", startCommand: "node dist/server.js", port: 3000,
  });
  const cron = await call("POST", `/v1/environments/${prod.id}/services`, {
    name: "nightly-report", type: "CRON", tier: "STARTER", image: "ghcr.io/acme/reports:2.0.1", schedule: "*/5 * * * *", command: "node report.js --since yesterday",
  });
  await call("POST", `/v1/environments/${prod.id}/services`, { name: "cache", type: "REDIS", tier: "STARTER", dbPassword });
  await call("POST", `/v1/environments/${dev.id}/services`, { name: "web", type: "WEB", image: "ghcr.io/acme/storefront:1.5.0-rc.1", port: 8080 });
  await call("POST", `/v1/environments/${dev.id}/services`, { name: "worker", type: "WEB", image: "ghcr.io/acme/worker:does-not-exist" });

  // A zone, proven by delegation, with a few records of its own.
  const zone = await call("POST", `/v1/workspaces/${ws}/dns-zones`, { name: "acme-shop.test" });
  await ctl("POST", "/dns/delegations", { domain: "acme-shop.test" });
  await call("POST", `/v1/dns-zones/${zone.id}/verify`);
  await call("POST", `/v1/dns-zones/${zone.id}/records`, { name: "@", type: "A", content: "203.0.113.80", ttl: 3600 });
  await call("POST", `/v1/dns-zones/${zone.id}/records`, { name: "status", type: "CNAME", content: "acme.status-pages.test", ttl: 300 });

  // A mail domain whose records go into that zone, then verified.
  const mail = await call("POST", `/v1/workspaces/${ws}/mail/domains`, { name: "mail.acme-shop.test" });
  for (const r of mail.records) {
    await call("POST", `/v1/dns-zones/${zone.id}/records`, { name: r.zoneHost, type: r.type, content: r.value, priority: r.priority ?? undefined });
  }

  // A static site with a custom domain whose CNAME goes into the zone.
  const marketing = await call("POST", `/v1/workspaces/${ws}/projects`, { name: "marketing", description: "Campaign sites" });
  const marketingProd = await call("POST", `/v1/projects/${marketing.id}/environments`, { name: "prod" });
  const zip = Buffer.from(zipSync({ "index.html": strToU8(LANDING), "style.css": strToU8(LANDING_CSS) }));
  const upload = await call("POST", "/v1/static-uploads", { filename: "landing.zip", contentType: "application/zip", sizeBytes: zip.length });
  const put = await fetch(upload.url, { method: upload.method, headers: Object.fromEntries(upload.headers.map((h: Json) => [h.name, h.value])), body: zip });
  if (!put.ok) throw new Error(`upload: ${put.status} ${await put.text()}`);
  const published = await call("POST", "/v1/static-sites", { uploadId: upload.uploadId, environmentId: marketingProd.id, name: "landing" });
  const site = published.site;
  const domain = await call("POST", `/v1/services/${site.id}/custom-domains`, { domain: "www.acme-shop.test" });
  const cname = domain.dnsTarget.records[0];
  await call("POST", `/v1/dns-zones/${zone.id}/records`, { name: cname.name, type: cname.type, content: cname.content });

  // Buckets and objects (objects through the control API: no storage key involved).
  await call("POST", `/v1/workspaces/${ws}/buckets`, { name: "acme-uploads" });
  await call("POST", `/v1/workspaces/${ws}/buckets`, { name: "acme-public-assets", visibility: "PUBLIC_READ" });
  await call("PUT", `/v1/workspaces/${ws}/buckets/acme-public-assets/cors`, {
    rules: [{ allowedMethods: ["GET", "HEAD"], allowedOrigins: ["https://www.acme-shop.test"], maxAgeSeconds: 3600 }],
  });
  const objects: [string, string, string, string][] = [
    ["acme-uploads", "invoices/2025/INV-1042.txt", "Invoice 1042\nTotal: 129.00 EUR\n", "text/plain"],
    ["acme-uploads", "invoices/2025/INV-1043.txt", "Invoice 1043\nTotal: 54.90 EUR\n", "text/plain"],
    ["acme-uploads", "exports/orders-2025-03.csv", "id,total\n1042,129.00\n1043,54.90\n", "text/csv"],
    ["acme-uploads", "README.txt", "Uploads from the storefront.\n", "text/plain"],
    ["acme-public-assets", "images/logo.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml"],
    ["acme-public-assets", "robots.txt", "User-agent: *\nAllow: /\n", "text/plain"],
  ];
  for (const [bucket, key, content, contentType] of objects) await ctl("POST", "/storage/objects", { bucket, key, content, contentType });

  // Let lifecycles and DNS propagation run their course, then verify what waited on them.
  await ctl("POST", "/time", { advanceMs: 15 * 60_000 });
  const verified = await call("POST", `/v1/domains/${mail.domain.id}/verify`);
  if (verified.domain.status !== "VERIFIED") throw new Error(`mail domain not verified: ${JSON.stringify(verified.domain.failingRecords)}`);
  await call("POST", `/v1/custom-domains/${domain.id}/verify`);

  // Email: real sends from the verified domain, and sandbox sends (one bounces).
  const send = api(t, t.keys.mail);
  const emailIds: string[] = [];
  const messages = [
    ["Your order #1042 has shipped", "ada@customers.test", "Your parcel is on its way. Track it at any time from your account."],
    ["Welcome to Acme Outdoor", "grace@customers.test", "Thanks for signing up. Here is 10% off your first order."],
    ["Receipt for order #1043", "linus@customers.test", "We received your payment of 54.90 EUR."],
  ];
  for (const [subject, to, text] of messages) {
    const sent = await send("POST", "/v1/emails", {
      from: "Acme Outdoor <orders@mail.acme-shop.test>", to, subject, text,
      html: `<div style="font-family:system-ui,sans-serif;max-width:520px;margin:24px auto;color:#14213d"><h2 style="margin:0 0 12px">${subject}</h2><p>${text}</p><p style="color:#7a6f6a;font-size:13px">Acme Outdoor</p></div>`,
      tags: { category: subject.startsWith("Welcome") ? "onboarding" : "orders" },
    });
    emailIds.push(sent.id);
  }
  const sandbox = api(t, t.keys.sandbox);
  const test = await sandbox("POST", "/v1/emails", { from: `ci@${t.testMailDomain}`, to: `delivered@${t.testMailDomain}`, subject: "Password reset (test)", text: "A test of the reset flow." });
  emailIds.push(test.id);
  await sandbox("POST", "/v1/emails", { from: `ci@${t.testMailDomain}`, to: `bounced@${t.testMailDomain}`, subject: "Bounce handling (test)", text: "This one bounces." });

  // A manual cron run, then time for it and the emails to finish.
  const run = await call("POST", `/v1/services/${cron.id}/runs`);
  await ctl("POST", "/time", { advanceMs: 60_000 });

  const live = await call("GET", `/v1/services/${site.id}`);
  return {
    projectId: shop.id, environmentId: prod.id, webId: web.id, apiId: apiService.id, cronId: cron.id, cronRunId: run.id, zoneId: zone.id,
    mailDomainId: mail.domain.id, emailIds, bucketName: "acme-uploads", siteId: site.id,
    sitePath: `/_sites/${new URL(live.url).hostname.split(".")[0]}/`,
    customDomain: "www.acme-shop.test", secrets: [secretToken, secretFile, dbPassword],
  };
}
