// The DnsRecord, DnsRecordSet and Suppression handlers called directly: each create, read, update
// and delete against the emulator, with the object itself looked up afterwards (a delete that does
// nothing must fail here, not hide behind the zone's cascade).
import { DnsRecord } from "../../provider/resources/dnsRecord";
import { DnsRecordSet } from "../../provider/resources/dnsRecordSet";
import type { Context } from "../../provider/resources/framework";
import { Suppression } from "../../provider/resources/suppression";
import { handlerSuite, type TestEmulator } from "../support/emulator";
import { failure, listPages, plainDiff } from "../support/helpers";

let emu: TestEmulator;
let ctx: Context;
let zoneId: string;
handlerSuite({}, (e, c) => ((emu = e), (ctx = c)));
beforeEach(async () => {
  zoneId = (await ctx.client.create<any>(`/v1/workspaces/${emu.workspaceId}/dns-zones`, { name: "handlers.test" })).id;
});

const zoneRecords = () => ctx.client.list<any>(`/v1/dns-zones/${zoneId}/records`);

test("DnsRecord: create, read, update in place, drift, delete of the record alone, delete of a gone one", async () => {
  const created = await DnsRecord.create(ctx, { zoneId, name: "WWW.handlers.test.", type: "cname", content: "App.Example.COM." });
  expect(created.outs).toEqual(expect.objectContaining({
    zoneId, zoneName: "handlers.test", name: "www", fqdn: "www.handlers.test", type: "CNAME", content: "app.example.com",
  }));
  const other = await ctx.client.create<any>(`/v1/dns-zones/${zoneId}/records`, { name: "@", type: "TXT", content: "kept" });

  const read = await DnsRecord.read!(ctx, created.id, created.outs);
  expect(read).toEqual({ id: created.id, props: created.outs, inputs: { zoneId, name: "www", type: "CNAME", content: "app.example.com", ttl: created.outs.ttl } });

  const updated = await DnsRecord.update!(ctx, created.id, created.outs, { zoneId, name: "www", type: "CNAME", content: "next.example.com", ttl: 300 });
  expect(updated.outs).toMatchObject({ content: "next.example.com", ttl: 300 });
  expect((await zoneRecords()).find((r) => r.id === created.id)).toMatchObject({ content: "next.example.com", ttl: 300 });

  // changed behind the provider's back: read reports the live value
  await ctx.client.patch(`/v1/dns-records/${created.id}`, { name: "www", type: "CNAME", content: "hand.example.com" });
  expect((await DnsRecord.read!(ctx, created.id, updated.outs)).props).toMatchObject({ content: "hand.example.com" });

  await DnsRecord.delete!(ctx, created.id, updated.outs);
  expect((await zoneRecords()).map((r) => r.id)).toEqual([other.id]);
  expect(await DnsRecord.read!(ctx, created.id, updated.outs)).toEqual({});
  await expect(DnsRecord.delete!(ctx, created.id, updated.outs)).resolves.toBeUndefined();
});

test("DnsRecord: reads of a zone's records at once walk its list once, in pages of 100; records deleted by hand cost one walk more", async () => {
  // Each read walked the zone's whole list in pages of 20: 200 records refreshed made 2,000 list calls.
  const path = `/v1/dns-zones/${zoneId}/records`;
  const made: any[] = [];
  for (let i = 0; i < 150; i++) made.push(await ctx.client.create<any>(path, { name: `r${i}`, type: "TXT", content: `v${i}` }));
  const olds = { zoneId, zoneName: "handlers.test" } as any;
  const get = jest.spyOn(ctx.client, "get");
  const lists = () => listPages(get, path);
  try {
    const reads = await Promise.all(made.map((r) => DnsRecord.read!(ctx, `${zoneId}/${r.id}`, olds)));
    expect(reads.map((r) => r.props?.content)).toEqual(made.map((r) => r.content));
    expect(lists()).toEqual([100, "next page"]);

    get.mockClear();
    const gone = made.slice(0, 30);
    for (const r of gone) await ctx.client.delete(`/v1/dns-records/${r.id}`);
    const again = await Promise.all(made.map((r) => DnsRecord.read!(ctx, `${zoneId}/${r.id}`, olds)));
    expect(again.map((r) => r.id)).toEqual([...gone.map(() => undefined), ...made.slice(30).map((r) => r.id)]);
    expect(lists().filter((l) => l === 100)).toHaveLength(2);
  } finally {
    get.mockRestore();
  }
});

test("DnsRecord: diff replaces on a new zone only; a full name or another spelling of the same record is no change", async () => {
  const olds = { zoneId: "z", zoneName: "handlers.test", name: "www", fqdn: "www.handlers.test", type: "CNAME", content: "app.example.com", ttl: 3600, priority: null } as any;
  expect(plainDiff(await DnsRecord.diff!("id", olds, { zoneId: "z", name: "WWW.handlers.test.", type: "cname", content: "app.example.com." }))).toEqual({ changes: false, replaces: [], deleteBeforeReplace: undefined });
  expect(plainDiff(await DnsRecord.diff!("id", olds, { zoneId: "z", name: "www", type: "CNAME", content: "b.example.com" }))).toEqual({ changes: true, replaces: [], deleteBeforeReplace: undefined });
  expect(plainDiff(await DnsRecord.diff!("id", olds, { zoneId: "y", name: "www", type: "CNAME", content: "app.example.com" }))).toEqual({ changes: true, replaces: ["zoneId"], deleteBeforeReplace: undefined });
});

test("DnsRecordSet: delete removes exactly the records it made, and the zone's others stay", async () => {
  const outside = await ctx.client.create<any>(`/v1/dns-zones/${zoneId}/records`, { name: "@", type: "TXT", content: "not ours" });
  const set = await DnsRecordSet.create(ctx, { zoneId, records: [{ name: "a", type: "A", content: "192.0.2.1" }, { name: "b", type: "TXT", content: "hello" }] });
  expect((await zoneRecords()).length).toBe(3);
  await DnsRecordSet.delete!(ctx, set.id, set.outs);
  expect((await zoneRecords()).map((r) => r.id)).toEqual([outside.id]);
  await expect(DnsRecordSet.delete!(ctx, set.id, set.outs)).resolves.toBeUndefined();
});

test("DnsRecordSet: import takes over exactly the records its id names; other ids are refused, naming the form", async () => {
  const a = await ctx.client.create<any>(`/v1/dns-zones/${zoneId}/records`, { name: "www", type: "CNAME", content: "app.example.com" });
  const b = await ctx.client.create<any>(`/v1/dns-zones/${zoneId}/records`, { name: "@", type: "MX", content: "mx.example.com", priority: 10 });
  const outside = await ctx.client.create<any>(`/v1/dns-zones/${zoneId}/records`, { name: "@", type: "TXT", content: "not ours" });

  const id = `${zoneId}/${b.id},${a.id}`;
  const imported = (await DnsRecordSet.read!(ctx, id, {} as any)) as { id: string; props: any; inputs: any };
  expect(imported.id).toBe(id);
  expect(imported.props.records.map((r: any) => [r.id, r.type, r.name, r.content])).toEqual([
    [b.id, "MX", "@", "mx.example.com"], [a.id, "CNAME", "www", "app.example.com"],
  ]);
  expect(imported.inputs).toEqual({ zoneId, records: imported.props.records.map(({ name, type, content, ttl, priority }: any) => ({ name, type, content, ttl, ...(priority === null ? {} : { priority }) })) });
  // The program that declares the same records shows no change; the next read follows the records.
  expect(plainDiff(await DnsRecordSet.diff!(id, imported.props as any, imported.inputs as any))).toEqual({ changes: false, replaces: [], deleteBeforeReplace: undefined });
  expect(await DnsRecordSet.read!(ctx, id, imported.props as any)).toEqual(imported);

  await DnsRecordSet.delete!(ctx, id, imported.props as any);
  expect((await zoneRecords()).map((r) => r.id)).toEqual([outside.id]);

  const form = /name the zone and the records the set takes over, as <zoneId>\/<recordId>,<recordId>\.\.\./;
  await expect(DnsRecordSet.read!(ctx, `${zoneId}/records-0a1b2c3d`, {} as any)).rejects.toThrow(form);
  await expect(DnsRecordSet.read!(ctx, zoneId, {} as any)).rejects.toThrow(form);
  await expect(DnsRecordSet.read!(ctx, `${zoneId}/`, {} as any)).rejects.toThrow(form);
  await expect(DnsRecordSet.read!(ctx, `${zoneId}/${outside.id},rec_gone`, {} as any)).rejects.toThrow(`zone handlers.test has no record rec_gone`);
});

test("Suppression: reason refused at check; create, read, diff, delete; a complaint cannot be deleted and says what to do", async () => {
  expect(await Suppression.check!({}, { address: "a@example.com", reason: "manual" })).toEqual({
    failures: [{ property: "reason", reason: expect.stringContaining("reason: is never accepted") }],
  });
  expect(await Suppression.check!({}, { address: "not an address" })).toMatchObject({ failures: [{ property: "address" }] });
  expect(await Suppression.check!({}, { address: " Ann@Example.COM " })).toEqual({ inputs: { address: "ann@example.com" } });
  expect(plainDiff(await Suppression.diff!("id", { address: "ann@example.com", workspaceId: null } as any, { address: "bob@example.com" }))).toEqual({
    changes: true, replaces: ["address"], deleteBeforeReplace: undefined,
  });

  const created = await Suppression.create(ctx, { address: "ann@example.com" });
  expect(created).toMatchObject({ id: "ann@example.com", outs: { address: "ann@example.com" } });
  expect(await Suppression.read!(ctx, created.id, created.outs)).toMatchObject({ id: created.id, inputs: { address: "ann@example.com" } });
  await Suppression.delete!(ctx, created.id, created.outs);
  const left = await ctx.client.list<any>("/v1/suppressions");
  expect(left.map((s) => s.address)).toEqual([]);
  expect(await Suppression.read!(ctx, created.id, created.outs)).toEqual({});
  await expect(Suppression.delete!(ctx, created.id, created.outs)).resolves.toBeUndefined();

  await emu.control("POST", "/mail/suppressions", { address: "angry@example.com", reason: "complaint" });
  const err = await failure(Suppression.delete!(ctx, "angry@example.com", { address: "angry@example.com" } as any));
  expect(err.message).toMatch(/recipient complained .*`pulumi state delete <urn>`/);
  expect((await ctx.client.list<any>("/v1/suppressions")).map((s) => s.address)).toEqual(["angry@example.com"]);
});
