// The preview table (test/lifecycle/preview-table.test.ts): every resource with in-place updates,
// each changed in round 2, with dependants wired by every output users wire (ids, serviceId,
// workspaceId, region, url, endpoint, zone ids); round 3 replaces a bucket. The same program runs
// on either SDK (`sdk`: dynamic or native), with the components' parts declared natively.
import * as pulumi from "@pulumi/pulumi";
import type * as Dynamic from "pulumi-cloudplatform";

const config = new pulumi.Config();
const native = config.get("sdk") === "native";
// Both SDKs take the same arguments; the native one has no components.
const cloud: typeof Dynamic = native ? require("pulumi-cloudplatform/native") : require("pulumi-cloudplatform");
const round = config.getNumber("round") ?? 1;
/** This round's value: the first for round 1, the second from round 2 on, and so on. */
const pick = <T>(...values: T[]): T => values[Math.min(round, values.length) - 1];
const zoneName = config.require("zone");
const orNone = (v: pulumi.Input<string | null | undefined>) => pulumi.output(v).apply((x) => x ?? "none");

// Project, changed in place; wired by id, by a declared region and by an undeclared workspace and region.
const project = new cloud.Project("project", { name: "table", description: pick("one", "two"), region: "eu-central-1", workspaceId: config.require("workspaceId") });
const bare = new cloud.Project("bare", { name: "bare", description: pick("one", "two") });
const env = new cloud.Environment("env", { projectId: project.id, name: "production" });
new cloud.Bucket("by-workspace", { workspaceId: bare.workspaceId, region: bare.region.apply((r) => r ?? undefined) as pulumi.Output<string>, forceDestroy: true });

// Services: a new image redeploys in place (its URL stays); a rename of a WEB service changes its URL.
const web = new cloud.Service("web", { environmentId: env.id, name: "web", type: "WEB", image: pick("nginx:1.27", "nginx:1.28"), region: project.region.apply((r) => r ?? undefined) as pulumi.Output<string>, timeout: "2m" });
const api = new cloud.Service("api", { environmentId: env.id, name: pick("api", "api-v2"), type: "WEB", image: "nginx:1.27", timeout: "2m" });
new cloud.EnvVar("web-url", { serviceId: web.id, key: "SELF_URL", value: orNone(web.url) });
new cloud.EnvVar("web-region", { serviceId: web.id, key: "REGION", value: orNone(web.region) });
new cloud.EnvVar("api-url", { serviceId: web.id, key: "API_URL", value: orNone(api.url) });

// An env var and a secret file, changed in place; wired by the serviceId they carry.
const mode = new cloud.EnvVar("mode", { serviceId: web.id, key: "MODE", value: pick("blue", "green") });
const file = new cloud.SecretFile("file", { serviceId: mode.serviceId, path: "/etc/app.json", content: pick("{}", "{\"v\":2}") });
new cloud.EnvVar("after-file", { serviceId: file.serviceId, key: "FILE_READY", value: "yes" });

// A static site, renamed and given new content in place; a custom domain wired by serviceId, an env var by url.
const site = new cloud.StaticSite("site", { path: pick("./site-a", "./site-b"), environmentId: env.id, name: pick("docs", "docs-v2"), timeout: "2m" });
new cloud.EnvVar("site-url", { serviceId: web.id, key: "SITE_URL", value: orNone(site.url) });

// A zone and its verification (a new timeout alone changes nothing); records wired by zone ids.
const zone = new cloud.DnsZone("zone", { name: zoneName });
const zoneVerified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: pick("60s", "90s") });
const txt = new cloud.DnsRecord("txt", { zoneId: zoneVerified.zoneId, name: "info", type: "TXT", content: pick("v1", "v2") });
const set = new cloud.DnsRecordSet("set", { zoneId: txt.zoneId, records: [{ name: "a", type: "A", content: pick("192.0.2.1", "192.0.2.2") }] });
new cloud.DnsRecord("after-set", { zoneId: set.zoneId, name: "b", type: "A", content: "192.0.2.9" });

// Custom domain and mail domain, each verified (a new timeout alone changes nothing).
const timeout = pick("60s", "90s");
if (native) {
  const domain = new cloud.CustomDomain("docs", { serviceId: site.serviceId, domain: `docs.${zoneName}` });
  const records = new cloud.DnsRecordSet("docs-records", {
    zoneId: zoneVerified.zoneId,
    records: domain.dnsTarget.apply((t) => t.records.map((r) => ({ name: `${r.fqdn}.`, type: r.type, content: r.content }))),
  });
  new cloud.CustomDomainVerification("docs", { domainId: domain.id, timeout }, { dependsOn: [records] });
  const mail = new cloud.MailDomain("mail", { name: `news.${zoneName}` }, { dependsOn: [zoneVerified] });
  const mailRecords = new cloud.DnsRecordSet("mail-records", {
    zoneId: zoneVerified.zoneId,
    records: mail.records.apply((rs) => rs.map((r) => ({ name: `${r.fqdn}.`, type: r.type, content: r.value, ...(r.priority != null ? { priority: r.priority } : {}) }))),
  });
  new cloud.MailDomainVerification("mail", { domainId: mail.id, timeout, workspaceId: mail.workspaceId }, { dependsOn: [mailRecords] });
} else {
  new cloud.VerifiedCustomDomain("docs", { serviceId: site.serviceId, domain: `docs.${zoneName}`, zoneId: zoneVerified.zoneId, timeout }, { dependsOn: [zoneVerified] });
  new cloud.VerifiedMailDomain("mail", { name: `news.${zoneName}`, zoneId: zoneVerified.zoneId, timeout }, { dependsOn: [zoneVerified] });
}

// A bucket: new CORS rules in place (round 2), a new visibility replaces it (round 3); wired by endpoint and public URL.
const assets = new cloud.Bucket("assets", {
  visibility: pick("PUBLIC_READ", "PUBLIC_READ", "PRIVATE"),
  corsRules: [{ allowedMethods: pick(["GET"], ["GET", "HEAD"]), allowedOrigins: ["*"] }],
  forceDestroy: true,
});
new cloud.EnvVar("assets", { serviceId: web.id, key: "ASSETS", value: pulumi.interpolate`${assets.endpoint} ${orNone(assets.publicBaseUrl)}` });
