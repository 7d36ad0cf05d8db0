// The simulated public DNS over real UDP DNS: a stock resolver sees what verify sees, including
// the propagation delay.
import { Resolver } from "node:dns/promises";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let resolver: Resolver;
beforeAll(async () => {
  emu = await emulator({ dnsPort: 0 });
  resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([emu.dnsAddress!]);
});
afterAll(async () => emu?.close());

test("serves a delegated, published zone's records: TXT (long values split), MX, A, AAAA, NS", async () => {
  const api = emu.client();
  await emu.control("POST", "/dns/delegations", { domain: "wire.test" });
  const zone = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/dns-zones`, { name: "wire.test" });
  expect((await api.post<any>(`/v1/dns-zones/${zone.id}/verify`)).published).toBe(true);
  const long = `v=DKIM1; k=rsa; p=${"A".repeat(400)}`;
  for (const r of [
    { name: "sel._domainkey", type: "TXT", content: long },
    { name: "@", type: "MX", content: "mx.wire.test", priority: 5 },
    { name: "www", type: "A", content: "192.0.2.10" },
    { name: "www", type: "AAAA", content: "2001:db8::1" },
  ]) await api.create(`/v1/dns-zones/${zone.id}/records`, r);

  expect((await resolver.resolveTxt("sel._domainkey.wire.test")).map((chunks) => chunks.join(""))).toEqual([long]);
  expect(await resolver.resolveMx("wire.test")).toEqual([{ exchange: "mx.wire.test", priority: 5 }]);
  expect(await resolver.resolve4("www.wire.test")).toEqual(["192.0.2.10"]);
  expect(await resolver.resolve6("www.wire.test")).toEqual(["2001:db8::1"]);
  expect((await resolver.resolveNs("wire.test")).sort()).toEqual(["ns1.cloudplatform.test", "ns2.cloudplatform.test"]);
  await expect(resolver.resolveTxt("missing.wire.test")).rejects.toMatchObject({ code: "ENODATA" });
});

test("an external record appears only after the propagation delay, on the emulator clock", async () => {
  await emu.control("PUT", "/dns/propagation", { dnsPropagationMs: 60_000 });
  await emu.control("POST", "/dns/records", { name: "elsewhere.test", type: "TXT", value: "hello" });
  await expect(resolver.resolveTxt("elsewhere.test")).rejects.toMatchObject({ code: "ENODATA" });
  await emu.control("POST", "/time", { advanceMs: 61_000 });
  expect(await resolver.resolveTxt("elsewhere.test")).toEqual([["hello"]]);
  await emu.control("PUT", "/dns/propagation", { dnsPropagationMs: 0 });
});
