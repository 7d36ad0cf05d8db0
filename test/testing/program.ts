// A program as a unit test would import it, written once for either SDK (the dynamic one of
// pulumi-cloudplatform, and the native one of pulumi-cloudplatform/native, which share class names).
import * as pulumi from "@pulumi/pulumi";
import type * as Dynamic from "../../sdk";

export type Sdk = typeof Dynamic;

export function shop(cp: Sdk) {
  const project = new cp.Project("shop", { name: "shop" });
  const env = new cp.Environment("prod", { projectId: project.id, name: "production" });
  const web = new cp.Service("web", { environmentId: env.id, name: "web", type: "WEB", tier: "STARTER", image: "nginx:1.27", healthCheckPath: "/healthz" });
  const db = new cp.Service("db", { environmentId: env.id, name: "db", type: "POSTGRES", dbName: "shop" });
  const key = new cp.EnvVar("stripe", { serviceId: web.id, key: "STRIPE_KEY", value: pulumi.secret("sk_test"), secret: true });
  const zone = new cp.DnsZone("zone", { name: "shop.example.com" });
  const www = new cp.DnsRecord("www", { zoneId: zone.id, name: "www", type: "CNAME", content: web.url.apply((u) => new URL(u!).host) });
  const assets = new cp.Bucket("assets", { visibility: "PUBLIC_READ", corsRules: [{ allowedOrigins: ["*"], allowedMethods: ["GET"] }] });
  const mail = new cp.MailDomain("mail", { name: "mail.shop.example.com" });
  const records = new cp.DnsRecordSet("mail-records", {
    zoneId: zone.id,
    records: mail.records.apply((rs) => rs.map((r) => ({ name: r.zoneHost ?? r.fqdn, type: r.type, content: r.value, ...(r.priority === null ? {} : { priority: r.priority }) }))),
  });
  const found = cp.getProjectOutput({ projectId: project.id });
  const other = cp.getBucketOutput({ name: "legacy-uploads" });
  return { project, env, web, db, key, zone, www, assets, mail, records, found, other };
}
