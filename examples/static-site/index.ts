// A static site from a local folder, served at www.<domain> through a custom domain published into
// a platform DNS zone, with a public bucket for its larger assets. `pulumi preview` shows an update
// exactly when a file of the folder changed; `pulumi up` deploys it in place, on the same URL.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const domain = config.get("domain") ?? "example-site.test";

const project = new cloud.Project("site", { name: config.get("projectName") ?? "marketing-site", displayName: "Marketing site" });
const production = new cloud.Environment("production", { projectId: project.id, name: "production" });

const site = new cloud.StaticSite("site", {
  path: config.get("siteDir") ?? "./site",
  environmentId: production.id,
  name: "marketing",
  spaFallback: true,
});

// The zone's nameservers point at the platform; once it is proven, one declaration adds the custom
// domain, publishes its CNAME into the zone and waits until the platform serves the site there.
const zone = new cloud.DnsZone("zone", { name: domain });
const zoneVerified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "5m" });
const www = new cloud.VerifiedCustomDomain("www", {
  serviceId: site.serviceId,
  domain: `www.${domain}`,
  zoneId: zoneVerified.zoneId,
  timeout: config.get("timeout") ?? "10m",
}, { dependsOn: [zoneVerified] });

// Images and downloads live in a bucket the browser may read from the site's own origin.
const assets = new cloud.Bucket("assets", {
  visibility: "PUBLIC_READ",
  corsRules: [{ allowedMethods: ["GET", "HEAD"], allowedOrigins: [`https://www.${domain}`], maxAgeSeconds: 3600 }],
  forceDestroy: config.getBoolean("forceDestroy") ?? true, // false: destroy refuses it while it holds objects
});

export const url = site.url;
export const siteId = site.serviceId;
export const deployId = site.deployId;
export const contentHash = site.contentHash;
export const customDomain = www.status.apply((status) => `https://www.${domain} (${status})`);
export const assetsBucket = assets.name;
export const assetsUrl = assets.publicBaseUrl;
// What an S3 client is made with (with a storage access key): the region's endpoint, path-style.
export const assetsEndpoint = assets.endpoint;
export const assetsRegion = assets.region;
