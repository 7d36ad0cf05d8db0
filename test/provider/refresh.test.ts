// What a refresh's read reports (provider/refresh.ts): the state's inputs untouched when the
// resource's own diff finds nothing changed; else the changed inputs with their live values and
// each change by path, a keyed list's items by key; keyed lists to and from the dynamic SDK's maps.
import { Operations } from "../../provider/operations";
import { driftOf, hasMaps, listsOf, mapsOf, overlay } from "../../provider/refresh";
import { Bucket } from "../../provider/resources/bucket";
import { DnsRecord } from "../../provider/resources/dnsRecord";
import { Service } from "../../provider/resources/service";

const svcOuts = (envVars: object[]) => ({
  environmentId: "e1", name: "web", type: "WEB", image: "nginx:1.27", region: "af-west-1", timeout: "2m", envVars,
  status: "ACTIVE", health: "HEALTHY", suspension: "NONE", url: "https://web.example", pendingRedeploy: false,
});
const vars = (mode: string, token: string) => [
  { key: "MODE", value: mode, scope: "ALL", secret: false },
  { key: "TOKEN", value: token, scope: "ALL", secret: true },
];

test("nothing changed: no change, whatever the declared inputs leave out or spell otherwise", async () => {
  // The program declares no region (the platform's choice) and its record name as a full name.
  const declared = { environmentId: "e1", name: "web", type: "WEB", image: "nginx:1.27", timeout: "2m", envVars: vars("calm", "t0") };
  expect(await driftOf(Service, "s1", svcOuts(vars("calm", "t0")), declared)).toEqual({ changes: false, keys: [], paths: [] });
  const record = { zoneId: "z1", zoneName: "shop.test", name: "www", fqdn: "www.shop.test", type: "CNAME", content: "app.example.com", ttl: 3600, priority: null };
  expect((await driftOf(DnsRecord, "r1", record, { zoneId: "z1", name: "WWW.shop.test.", type: "cname", content: "app.example.com." })).changes).toBe(false);
  // What the old outputs stand for (the dynamic SDK's reference) is no change against themselves.
  expect((await driftOf(Service, "s1", svcOuts(vars("calm", "t0")), Service.inputsOf!(svcOuts(vars("calm", "t0")) as never))).changes).toBe(false);
  const bucket = { name: "assets", region: "af-west-1", visibility: "PRIVATE", workspaceId: "w1", corsRules: null, policy: null, forceDestroy: false, endpoint: "e", publicBaseUrl: null, createdAt: null };
  expect((await driftOf(Bucket, "assets", bucket, Bucket.inputsOf!(bucket as never))).changes).toBe(false);
  expect((await driftOf(Bucket, "assets", bucket, { name: "assets" })).changes).toBe(false);
});

test("a change: only the changed inputs take their live values, and each change is named, list items by key", async () => {
  const declared = { environmentId: "e1", name: "web", type: "WEB", image: "nginx:1.27", timeout: "90s", envVars: vars("calm", "t0") };
  const live = { ...svcOuts([{ key: "EXTRA", value: "x", scope: "ALL", secret: false }, ...vars("panic", "t1")]), image: "nginx:1.28" };
  const d = await driftOf(Service, "s1", live, declared);
  expect(d.changes).toBe(true);
  expect(d.keys.sort()).toEqual(["envVars", "image", "timeout"]);
  expect(d.paths).toEqual(expect.arrayContaining([
    { path: ["envVars", "MODE", "value"], kind: "update" },
    { path: ["envVars", "TOKEN", "value"], kind: "update" },
    { path: ["envVars", "EXTRA"], kind: "add" },
    { path: ["image"], kind: "update" },
  ]));
  const inputs = overlay(declared, Service.inputsOf!(live as never) as Record<string, unknown>, ["envVars", "image"]);
  // The declared timeout and spelling stay; the changed ones are live.
  expect(inputs).toEqual({ ...declared, image: "nginx:1.28", envVars: live.envVars });
});

test("keyed lists: maps by key (the dynamic SDK's form) and back, other lists and shapes left alone", () => {
  const list = { envVars: [{ key: "MODE", value: "calm" }, { key: "TOKEN", value: { secret: 1 } }], secretFiles: [{ path: "/etc/a.json", content: "{}" }], image: "x" };
  const maps = mapsOf(Service, list);
  expect(maps).toEqual({ envVars: { MODE: { value: "calm" }, TOKEN: { value: { secret: 1 } } }, secretFiles: { "/etc/a.json": { content: "{}" } }, image: "x" });
  expect(hasMaps(Service, maps)).toBe(true);
  expect(hasMaps(Service, list)).toBe(false);
  expect(listsOf(Service, maps)).toEqual(list);
  expect(listsOf(Service, list)).toBe(list);
  expect(mapsOf(Bucket, { corsRules: [{ allowedMethods: ["GET"] }] })).toEqual({ corsRules: [{ allowedMethods: ["GET"] }] });
});

test("an input the state does not hold (an import left it out, for the program to add) is never a change", async () => {
  const outs = svcOuts(vars("calm", "t0"));
  const imported = { environmentId: "e1", name: "web", type: "WEB", image: "nginx:1.27", timeout: "2m" };
  expect((await driftOf(Service, "s1", outs, imported)).changes).toBe(false);
  const ops = new Operations({});
  // The engine's refresh diff (the read's inputs as the old ones) and up's diff of a program that still leaves it out: no change.
  expect((await ops.diff("Service", "s1", outs, imported, imported)).changes).toBe(false);
  // A program that drops the env vars it declared: a change, which deletes them.
  expect(await ops.diff("Service", "s1", outs, imported, { ...imported, envVars: vars("calm", "t0") })).toMatchObject({ changes: true, detailedDiff: { "envVars": { kind: "delete" } } });
});

test("a list item added or removed live is `add` or `delete` from the state to the live object (the drift harness found them reversed)", async () => {
  const rule = (origins: string[], methods = ["GET"]) => ({ allowedMethods: methods, allowedOrigins: origins, allowedHeaders: null, exposeHeaders: null, maxAgeSeconds: null });
  const bucket = (corsRules: object[]) => ({ name: "assets", region: "af-west-1", visibility: "PRIVATE", workspaceId: "w1", corsRules, policy: null, forceDestroy: false, endpoint: "e", publicBaseUrl: null, createdAt: null });
  const declared = { name: "assets", corsRules: [rule(["https://a.example"], ["PUT"])] };
  const added = await driftOf(Bucket, "assets", bucket([rule(["https://a.example"], ["PUT", "POST"]), rule(["https://b.example"])]), declared);
  expect(added.paths).toEqual(expect.arrayContaining([{ path: ["corsRules", "0", "allowedMethods", "1"], kind: "add" }, { path: ["corsRules", "1"], kind: "add" }]));
  const removed = await driftOf(Bucket, "assets", bucket([]), { name: "assets", corsRules: [rule(["https://a.example"]), rule(["https://b.example"])] });
  expect(removed.paths.every((p) => p.kind === "delete")).toBe(true);
});
