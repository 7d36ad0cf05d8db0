// Import ids and deletes that need a parent, at the handlers: each type's read takes its import id
// with no state (as `pulumi import` and the `import` option call it) and fills every output, parent
// ids and workspaceId included, under the plain id; a delete whose state lacks the parent (an old
// import) deletes the object or fails naming what to do, never "deleted" while it stays.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeContext } from "../../provider/config";
import { resources } from "../../provider/resources";
import type { Context } from "../../provider/resources/framework";
import { emulator, type TestEmulator } from "../support/emulator";
import { makeEverything, type Made } from "../support/fixtures";
import { failure } from "../support/helpers";

let emu: TestEmulator;
let ctx: Context;
let made: Made;
let dir: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl });
  dir = mkdtempSync(join(tmpdir(), "import-handlers-"));
  made = await makeEverything(emu, emu.client(), "h", dir);
});
afterAll(async () => {
  await ctx.client.close();
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

const read = (kind: string, id: string, olds: Record<string, unknown> = {}) => resources[kind].read!(ctx, id, olds as any);

test("every type's read takes its import id and fills every output, parents and workspaceId included", async () => {
  const ws = emu.workspaceId;
  const expected: Record<string, { id: string; props: Record<string, unknown> }> = {
    Project: { id: made.projectId, props: { name: "legacy-h", description: "made by hand", workspaceId: ws } },
    Environment: { id: made.environmentId, props: { projectId: made.projectId, name: "production", kind: null } },
    Service: { id: made.serviceId, props: { environmentId: made.environmentId, name: "web", image: "nginx:1.27", status: "ACTIVE" } },
    EnvVar: { id: `${made.otherServiceId}/LONE`, props: { serviceId: made.otherServiceId, key: "LONE", value: made.secrets[2], scope: "ALL", secret: false } },
    SecretFile: { id: `${made.otherServiceId}:/etc/lone.txt`, props: { serviceId: made.otherServiceId, path: "/etc/lone.txt", content: made.secrets[3] } },
    DnsZone: { id: made.zoneId, props: { name: made.zone, workspaceId: ws, published: true } },
    DnsZoneVerification: { id: made.zoneId, props: { zoneId: made.zoneId, name: made.zone, published: true } },
    DnsRecord: { id: made.importIds.DnsRecord.split("/")[1], props: { zoneId: made.zoneId, zoneName: made.zone, name: "www", type: "CNAME", content: "app.example.com" } },
    DnsRecordSet: { id: made.importIds.DnsRecordSet, props: { zoneId: made.zoneId, zoneName: made.zone } },
    MailDomain: { id: made.mailDomainId, props: { name: `mail.${made.zone}`, workspaceId: ws, status: "VERIFIED" } },
    MailDomainVerification: { id: made.mailDomainId, props: { domainId: made.mailDomainId, workspaceId: ws, status: "VERIFIED" } },
    Suppression: { id: made.address, props: { address: made.address, workspaceId: ws, reason: "manual" } },
    Bucket: {
      id: made.bucket,
      props: {
        name: made.bucket, workspaceId: ws, region: made.region, visibility: "PUBLIC_READ", forceDestroy: false,
        corsRules: [{ allowedMethods: ["GET"], allowedOrigins: ["https://www.example.com"], allowedHeaders: null, exposeHeaders: null, maxAgeSeconds: null }],
      },
    },
    StaticSite: { id: made.siteId, props: { serviceId: made.siteId, environmentId: made.environmentId, name: "docs", contentHash: null, deployId: expect.any(String) } },
    CustomDomain: { id: made.customDomainId, props: { serviceId: made.serviceId, domain: `shop.${made.zone}`, status: "ACTIVE" } },
    CustomDomainVerification: { id: made.customDomainId, props: { domainId: made.customDomainId, serviceId: made.serviceId, status: "ACTIVE" } },
  };
  expect(Object.keys(expected).sort()).toEqual(Object.keys(resources).sort());
  for (const [kind, want] of Object.entries(expected)) {
    const r = await read(kind, made.importIds[kind]);
    expect({ kind, id: r.id, props: r.props }).toMatchObject({ kind, ...want });
    expect(r.inputs).toBeDefined();
    // what the read fills is what each output's schema says it holds
    expect(Object.keys(r.props!).filter((k) => !(k in resources[kind].outputs.shape))).toEqual([]);
    // and a refresh of that state finds the object again under the same id
    expect((await read(kind, r.id!, r.props as any)).id).toBe(r.id);
  }
  // the imported service adopts its variables and files, secret values included
  const svc = (await read("Service", made.serviceId)).props as any;
  expect(svc.envVars).toEqual([
    { key: "MODE", value: "production", scope: "ALL", secret: false },
    { key: "TOKEN", value: made.secrets[0], scope: "ALL", secret: true },
  ]);
  expect(svc.secretFiles).toEqual([{ path: "/etc/app/secret.json", content: made.secrets[1] }]);
  expect(resources.Service.secretPaths!(svc)).toEqual([["envVars", 1, "value"], ["secretFiles", 0, "content"]]);
  // a site's content cannot be read back: the import writes a placeholder path that diff refuses
  const site = await read("StaticSite", made.siteId);
  expect((site.inputs as any).path).not.toBe("");
  expect(() => resources.StaticSite.diff!(made.siteId, site.props as any, { ...(site.inputs as any) })).toThrow(/^path: an imported site's content cannot be read back/);
});

test("bare import forms: a mail domain's id, a suppressed address and a bucket's name are looked up in the configured workspace", async () => {
  expect((await read("MailDomain", made.mailDomainId)).props).toMatchObject({ workspaceId: emu.workspaceId, name: `mail.${made.zone}` });
  expect((await read("MailDomainVerification", made.mailDomainId)).props).toMatchObject({ workspaceId: emu.workspaceId, domainId: made.mailDomainId });
  expect((await read("Suppression", made.address)).props).toMatchObject({ workspaceId: emu.workspaceId, address: made.address });
  expect((await read("Bucket", made.bucket)).props).toMatchObject({ workspaceId: emu.workspaceId, region: made.region });
  // a malformed id says what it should be
  expect((await failure(read("Bucket", "a/b"))).message).toMatch(/expected <workspaceId>\/<region>\/<name>/);
  expect((await failure(read("DnsRecord", "rec-only"))).message).toMatch(/import it as <zoneId>\/<recordId>/);
  expect((await failure(read("CustomDomain", "dom-only"))).message).toMatch(/import it as <serviceId>\/<domainId>/);
});

test("a delete whose state lacks the workspace: the object goes when the configured workspace holds it, else a clear error and it stays", async () => {
  const api = emu.client();
  const ws = emu.workspaceId;
  // state as an old import wrote it: no workspaceId
  const bucket = await api.create<any>(`/v1/workspaces/${ws}/buckets`, { name: "old-import-bucket" });
  const oldBucket = { name: bucket.name, region: bucket.region, forceDestroy: false } as any;
  const mail = await api.create<any>(`/v1/workspaces/${ws}/mail/domains`, { name: "old-import.example.org" });
  const oldMail = { name: "old-import.example.org" } as any;

  // configured for another workspace the key also reaches: the object is not there, so nothing is done
  const staging = (await emu.client(emu.keys.account).list<any>("/v1/workspaces")).find((w) => w.id !== ws)!.id;
  const elsewhere = makeContext({ apiKey: emu.keys.account, baseUrl: emu.baseUrl, workspaceId: staging });
  try {
    const err = await failure(resources.Bucket.delete!(elsewhere, bucket.name, oldBucket));
    expect(err.message).toBe(
      `bucket old-import-bucket: the state does not record its workspace, and the configured workspace ${staging} does not hold it, so nothing was done to it. ` +
        "Run `pulumi refresh` (it records the workspace, or drops the object from state when it is gone), then run the command again.",
    );
    expect((await failure(resources.MailDomain.delete!(elsewhere, mail.domain.id, oldMail))).message).toMatch(/^mail domain old-import.example.org: the state does not record its workspace/);
    // an update that needs the workspace is refused the same way
    expect((await failure(resources.Bucket.update!(elsewhere, bucket.name, oldBucket, { ...oldBucket, corsRules: [] }))).message).toMatch(/does not record its workspace/);
  } finally {
    await elsewhere.client.close();
  }
  expect((await api.list<any>(`/v1/workspaces/${ws}/buckets`)).map((b) => b.name)).toContain("old-import-bucket");
  expect((await api.get<any>(`/v1/workspaces/${ws}/mail/domains/${mail.domain.id}`)).domain.id).toBe(mail.domain.id);

  // a refresh fills the workspace in, and the next delete reaches the object
  const refreshed = await read("Bucket", bucket.name, oldBucket);
  expect(refreshed.props).toMatchObject({ workspaceId: ws });
  expect((await read("MailDomain", mail.domain.id, oldMail)).props).toMatchObject({ workspaceId: ws });
  await resources.Bucket.delete!(ctx, bucket.name, refreshed.props as any);
  expect((await api.list<any>(`/v1/workspaces/${ws}/buckets`)).map((b) => b.name)).not.toContain("old-import-bucket");
  // with the configured workspace holding it, the old state deletes it too
  await resources.MailDomain.delete!(ctx, mail.domain.id, oldMail);
  await expect(api.get(`/v1/workspaces/${ws}/mail/domains/${mail.domain.id}`)).rejects.toMatchObject({ status: 404 });
});

test("deletes name their object from the id when the state lacks its parts, and refuse a path with a missing part", async () => {
  const api = emu.client();
  await api.patch(`/v1/services/${made.otherServiceId}/env-vars`, { envVars: [{ key: "GONE_SOON", value: "x" }] });
  await resources.EnvVar.delete!(ctx, `${made.otherServiceId}/GONE_SOON`, {} as any);
  expect((await api.list<any>(`/v1/services/${made.otherServiceId}/env-vars`)).map((v) => v.key)).not.toContain("GONE_SOON");
  await api.put(`/v1/services/${made.otherServiceId}/secret-files`, { path: "/tmp/gone", content: "x" });
  await resources.SecretFile.delete!(ctx, `${made.otherServiceId}:/tmp/gone`, {} as any);
  expect((await api.list<any>(`/v1/services/${made.otherServiceId}/secret-files`)).map((f) => f.path)).not.toContain("/tmp/gone");
  expect((await failure(resources.EnvVar.delete!(ctx, "no-separator", {} as any))).message).toMatch(/expected <serviceId>\/<key>/);
  // an empty part is refused before any request: it would name /undefined/ or //, where a 404 proves nothing
  expect((await failure(resources.DnsRecord.delete!(ctx, `${made.zoneId}/`, {} as any))).message).toBe(
    "the resource's state has no record id, so the request cannot name the object; run `pulumi refresh` to fill it in, then try again",
  );
  expect((await failure(resources.SecretFile.delete!(ctx, "x", { serviceId: made.otherServiceId, path: "" } as any))).message).toMatch(/expected <serviceId>:<path>/);
  // a record set whose state lacks the zone finds it from its id instead of reporting the set gone
  const set = await read("DnsRecordSet", made.importIds.DnsRecordSet);
  const refreshed = await read("DnsRecordSet", set.id!, { records: (set.props as any).records });
  expect(refreshed.props).toMatchObject({ zoneId: made.zoneId, zoneName: made.zone, records: (set.props as any).records });
});
