// One object of every resource type, made through the REST API as someone working outside Pulumi
// would, with the import id each type takes (the contract in the reference docs). The zone is
// delegated to the platform, so the zone, the mail domain and the custom domain verify.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CloudPlatformClient } from "../../provider/client";
import { makeContext } from "../../provider/config";
import { StaticSite } from "../../provider/resources/staticSite";
import type { TestEmulator } from "./emulator";

export interface Made {
  /** Import id by resource type. */
  importIds: Record<string, string>;
  projectId: string;
  environmentId: string;
  /** The imported service, with a plain and a secret env var and a secret file. */
  serviceId: string;
  /** Another service, not imported, holding the env var and secret file imported on their own. */
  otherServiceId: string;
  zoneId: string;
  zone: string;
  bucket: string;
  region: string;
  mailDomainId: string;
  address: string;
  siteId: string;
  sitePath: string;
  customDomainId: string;
  /** Values that must never show in plain text. */
  secrets: string[];
}

/** Makes the objects; `tag` keeps names apart between tests of one emulator. */
export async function makeEverything(emu: TestEmulator, api: CloudPlatformClient, tag: string, dir: string): Promise<Made> {
  emu.emu.settings.dnsPropagationMs = 0;
  const ws = emu.workspaceId;
  const project = await api.create<any>(`/v1/workspaces/${ws}/projects`, { name: `legacy-${tag}`, description: "made by hand" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "production" });
  const token = `tok-${tag}-s3cr3t-value`;
  const fileContent = `{"password":"file-${tag}-s3cr3t"}`;
  const svc = await api.create<any>(`/v1/environments/${env.id}/services`, {
    name: "web", type: "WEB", image: "nginx:1.27",
    envVars: [{ key: "MODE", value: "production" }, { key: "TOKEN", value: token, secret: true }],
    secretFiles: [{ path: "/etc/app/secret.json", content: fileContent }],
  });
  const other = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "worker", type: "WEB", image: "nginx:1.27" });
  const loneValue = `lone-${tag}-s3cr3t`;
  await api.patch(`/v1/services/${other.id}/env-vars`, { envVars: [{ key: "LONE", value: loneValue }] });
  const loneFile = `lone-file-${tag}-s3cr3t`;
  await api.put(`/v1/services/${other.id}/secret-files`, { path: "/etc/lone.txt", content: loneFile });

  const zone = `legacy-${tag}.test`;
  const z = await verifiedZone(emu, api, zone);
  const www = await api.create<any>(`/v1/dns-zones/${z.id}/records`, { name: "www", type: "CNAME", content: "app.example.com" });
  const a = await api.create<any>(`/v1/dns-zones/${z.id}/records`, { name: "@", type: "A", content: "203.0.113.10" });
  const txt = await api.create<any>(`/v1/dns-zones/${z.id}/records`, { name: "@", type: "TXT", content: "set-member" });

  const mailId = await verifiedMailDomain(api, ws, z.id, `mail.${zone}`);

  const address = `bounced-${tag}@example.org`;
  await api.post("/v1/suppressions", { address }, { query: { workspaceId: ws } });

  const bucket = `legacy-${tag}-assets`;
  const b = await api.create<any>(`/v1/workspaces/${ws}/buckets`, { name: bucket, visibility: "PUBLIC_READ" });
  await api.put(`/v1/workspaces/${ws}/buckets/${bucket}/cors`, { rules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://www.example.com"] }] });

  // The site: published from a folder, as any client of the upload routes does.
  const sitePath = join(dir, "site");
  mkdirSync(sitePath, { recursive: true });
  writeFileSync(join(sitePath, "index.html"), `<h1>${tag}</h1>`);
  const ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl });
  let siteId: string;
  try {
    siteId = (await StaticSite.create(ctx, { path: sitePath, environmentId: env.id, name: "docs", indexPath: "index.html", spaFallback: false })).id;
  } finally {
    await ctx.client.close();
  }

  const cd = await verifiedCustomDomain(api, svc.id, z.id, zone, "shop");

  return {
    importIds: {
      Project: project.id,
      Environment: env.id,
      Service: svc.id,
      EnvVar: `${other.id}/LONE`,
      SecretFile: `${other.id}:/etc/lone.txt`,
      DnsZone: z.id,
      DnsZoneVerification: z.id,
      DnsRecord: `${z.id}/${www.id}`,
      DnsRecordSet: `${z.id}/${a.id},${txt.id}`,
      MailDomain: `${ws}/${mailId}`,
      MailDomainVerification: `${ws}/${mailId}`,
      Suppression: `${ws}/${address}`,
      Bucket: `${ws}/${b.region}/${bucket}`,
      StaticSite: siteId,
      CustomDomain: `${svc.id}/${cd.id}`,
      CustomDomainVerification: `${svc.id}/${cd.id}`,
    },
    projectId: project.id,
    environmentId: env.id,
    serviceId: svc.id,
    otherServiceId: other.id,
    zoneId: z.id,
    zone,
    bucket,
    region: b.region,
    mailDomainId: mailId,
    address,
    siteId,
    sitePath,
    customDomainId: cd.id,
    secrets: [token, fileContent, loneValue, loneFile],
  };
}

/** A zone delegated to the platform, then made and verified. */
export async function verifiedZone(emu: TestEmulator, api: CloudPlatformClient, name: string): Promise<{ id: string }> {
  await emu.control("POST", "/dns/delegations", { domain: name });
  const z = await api.create<{ id: string }>(`/v1/workspaces/${emu.workspaceId}/dns-zones`, { name });
  await api.post(`/v1/dns-zones/${z.id}/verify`);
  return z;
}

/** A sending domain whose records are published in the zone, verified; its id. */
export async function verifiedMailDomain(api: CloudPlatformClient, ws: string, zoneId: string, name: string): Promise<string> {
  const mail = await api.create<any>(`/v1/workspaces/${ws}/mail/domains`, { name });
  const mailId: string = mail.domain?.id ?? mail.id;
  const detail = await api.get<any>(`/v1/workspaces/${ws}/mail/domains/${mailId}`);
  for (const r of detail.records) {
    await api.create(`/v1/dns-zones/${zoneId}/records`, { name: r.zoneHost, type: r.type, content: r.value, ...(r.priority != null ? { priority: r.priority } : {}) });
  }
  await api.post(`/v1/workspaces/${ws}/mail/domains/${mailId}/verify`);
  return mailId;
}

/** A custom domain `<host>.<zone>` on the service, its record published in the zone, verified (ACTIVE). */
export async function verifiedCustomDomain(api: CloudPlatformClient, serviceId: string, zoneId: string, zone: string, host: string): Promise<{ id: string }> {
  const cd = await api.create<any>(`/v1/services/${serviceId}/custom-domains`, { domain: `${host}.${zone}` });
  for (const r of cd.dnsTarget.records) await api.create(`/v1/dns-zones/${zoneId}/records`, { name: host, type: r.type, content: r.content });
  await api.post(`/v1/custom-domains/${cd.id}/verify`);
  return cd;
}
