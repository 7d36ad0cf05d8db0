// Storage (§4.8): buckets, their CORS rules and policy, the object API on each bucket's endpoint,
// and storage access keys, through the real client as users would call them.
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
let ws: string;
let buckets: string;
beforeAll(async () => {
  emu = await emulator();
  ws = emu.workspaceId;
  buckets = `/v1/workspaces/${ws}/buckets`;
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

const keyOf = (workspaceId = ws) => {
  const k = emu.storageKeys.find((x) => x.workspaceId === workspaceId)!;
  return `Bearer ${k.accessKeyId}:${k.secret}`;
};
const objectCall = (url: string, init: RequestInit & { auth?: string } = {}) =>
  fetch(url, { ...init, headers: { ...(init.auth ? { authorization: init.auth } : {}), ...(init.headers as Record<string, string>) } });

describe("buckets", () => {
  test("names: 3 to 63 lowercase letters, digits, dots and hyphens, unique across the service", async () => {
    const api = emu.client();
    for (const bad of ["ab", "Upper", "under_score", "x".repeat(64)]) {
      const err = await failure(api.create(buckets, { name: bad }));
      expect(err.status).toBe(400);
      expect(String(err.messages)).toContain("name: must be 3 to 63 characters");
    }
    const b = await api.create<any>(buckets, { name: "assets.acme-1" });
    expect(b).toMatchObject({ name: "assets.acme-1", region: "af-west-1", visibility: "PRIVATE", publicBaseUrl: null });
    expect(b.createdAt).toBeTruthy();

    const same = await failure(api.create(buckets, { name: "assets.acme-1" }, { query: { region: "eu-central-1" } }));
    expect(same.status).toBe(409);
    expect(String(same.messages)).toContain("already exists in this workspace");
    const other = await failure(
      emu.client(emu.keys.otherWorkspace).create(`/v1/workspaces/${emu.otherWorkspaceId}/buckets`, { name: "assets.acme-1" }),
    );
    expect(other.status).toBe(409);
    expect(String(other.messages)).toContain("taken by another workspace");
    expect((await failure(api.create(buckets, { name: "vis-bad", visibility: "PUBLIC" }))).status).toBe(400);
  });

  test("region is honoured on every route; the wrong region is 404; unknown regions 400", async () => {
    const api = emu.client();
    await api.create(buckets, { name: "eu-bucket" }, { query: { region: "eu-central-1" } });
    await api.create(buckets, { name: "home-bucket" });
    expect((await api.list<any>(buckets)).map((b) => b.name)).toEqual(["home-bucket"]);
    expect((await api.list<any>(buckets, { query: { region: "eu-central-1" } })).map((b) => [b.name, b.region])).toEqual([["eu-bucket", "eu-central-1"]]);
    expect((await failure(api.get(`${buckets}/eu-bucket/cors`))).status).toBe(404);
    expect((await failure(api.get(`${buckets}/eu-bucket/policy`, { query: { region: "us-east-1" } }))).status).toBe(404);
    expect((await failure(api.delete(`${buckets}/eu-bucket`))).status).toBe(404);
    expect(await api.get(`${buckets}/eu-bucket/policy`, { query: { region: "eu-central-1" } })).toEqual({ policy: null });
    const unknown = await failure(api.list(buckets, { query: { region: "mars-1" } }));
    expect(unknown.status).toBe(400);
    expect(String(unknown.messages)).toContain("region: unknown region key 'mars-1'");
    await api.delete(`${buckets}/eu-bucket`, { query: { region: "eu-central-1" } });
    expect(await api.list(buckets, { query: { region: "eu-central-1" } })).toEqual([]);
    // pages
    for (const n of ["p-1", "p-2", "p-3"]) await api.create(buckets, { name: n });
    const first = await api.get<any>(buckets, { query: { limit: 2 } });
    expect(first.data).toHaveLength(2);
    expect(first.nextCursor).toBeTruthy();
  });

  test("endpoint is served by the emulator; publicBaseUrl only for PUBLIC_READ", async () => {
    const api = emu.client();
    const priv = await api.create<any>(buckets, { name: "private-one" });
    const pub = await api.create<any>(buckets, { name: "public-one", visibility: "PUBLIC_READ" });
    expect(priv.endpoint).toBe(`${emu.baseUrl}/_storage/af-west-1/private-one`);
    expect(priv.publicBaseUrl).toBeNull();
    expect(pub.publicBaseUrl).toBe(`${emu.baseUrl}/_storage/af-west-1/public-one`);
  });

  test("scopes: a read-only key lists but cannot create; another workspace's buckets are 404", async () => {
    const ro = emu.client(emu.keys.readPlatform);
    expect(await ro.list(buckets)).toEqual([]);
    const denied = await failure(ro.create(buckets, { name: "nope-bucket" }));
    expect(denied.status).toBe(403);
    expect(String(denied.messages)).toContain("WRITE");
    await emu.client().create(buckets, { name: "mine-bucket" });
    const stranger = emu.client(emu.keys.otherWorkspace);
    expect((await failure(stranger.get(`${buckets}/mine-bucket/cors`))).status).toBe(404);
  });

  test("a create retried with the same Idempotency-Key acts once", async () => {
    const api = emu.client();
    const first = await api.request<any>("POST", buckets, { body: { name: "idem-bucket" }, idempotencyKey: "k-1" });
    const again = await api.request<any>("POST", buckets, { body: { name: "idem-bucket" }, idempotencyKey: "k-1" });
    expect(again.status).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.data).toEqual(first.data);
    expect(await api.list(buckets)).toHaveLength(1);
  });
});

describe("objects", () => {
  test("PUT, GET, list and DELETE with a storage access key; anonymous GET only on PUBLIC_READ", async () => {
    const api = emu.client();
    const priv = await api.create<any>(buckets, { name: "obj-private" });
    const pub = await api.create<any>(buckets, { name: "obj-public", visibility: "PUBLIC_READ" });
    const auth = keyOf();

    expect((await objectCall(`${priv.endpoint}/a.txt`, { method: "PUT", body: "hi" })).status).toBe(401);
    expect((await objectCall(`${priv.endpoint}/a.txt`, { method: "PUT", body: "hi", auth: "Bearer SKNOPE:wrong" })).status).toBe(401);
    expect((await objectCall(`${priv.endpoint}/a.txt`, { method: "PUT", body: "hi", auth: keyOf(emu.otherWorkspaceId) })).status).toBe(403);
    const put = await objectCall(`${priv.endpoint}/dir/a.txt`, { method: "PUT", body: "hello", auth, headers: { "content-type": "text/plain" } });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ key: "dir/a.txt", size: 5 });
    await objectCall(`${priv.endpoint}/b.bin`, { method: "PUT", body: new Uint8Array([0, 1, 2]), auth, headers: { "content-type": "application/octet-stream" } });

    const got = await objectCall(`${priv.endpoint}/dir/a.txt`, { auth });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toContain("text/plain");
    expect(await got.text()).toBe("hello");
    expect(Buffer.from(await (await objectCall(`${priv.endpoint}/b.bin`, { auth })).arrayBuffer())).toEqual(Buffer.from([0, 1, 2]));
    expect((await objectCall(`${priv.endpoint}/dir/a.txt`)).status).toBe(401);
    expect((await objectCall(`${priv.endpoint}/missing`, { auth })).status).toBe(404);

    const list: any = await (await objectCall(`${priv.endpoint}?list-type=2`, { auth })).json();
    expect(list.objects.map((o: any) => o.key)).toEqual(["b.bin", "dir/a.txt"]);
    const prefixed: any = await (await objectCall(`${priv.endpoint}?list&prefix=dir/`, { auth })).json();
    expect(prefixed.objects.map((o: any) => o.key)).toEqual(["dir/a.txt"]);

    expect((await objectCall(`${priv.endpoint}/dir/a.txt`, { method: "DELETE", auth })).status).toBe(204);
    expect((await objectCall(`${priv.endpoint}/dir/a.txt`, { auth })).status).toBe(404);

    await emu.control("POST", "/storage/objects", { bucket: "obj-public", key: "index.html", content: "<h1>hi</h1>", contentType: "text/html" });
    const anon = await objectCall(`${pub.publicBaseUrl}/index.html`);
    expect(anon.status).toBe(200);
    expect(await anon.text()).toBe("<h1>hi</h1>");
    expect((await objectCall(`${pub.endpoint}/index.html`, { method: "DELETE" })).status).toBe(401);
    expect((await objectCall(`${emu.baseUrl}/_storage/eu-central-1/obj-public/index.html`)).status).toBe(404);
  });

  test("the bucket's CORS rules answer browser preflights and add CORS headers to responses", async () => {
    const api = emu.client();
    const b = await api.create<any>(buckets, { name: "cors-objects", visibility: "PUBLIC_READ" });
    await api.put(`${buckets}/cors-objects/cors`, [
      { allowedMethods: ["GET"], allowedOrigins: ["https://*.shop.test"], exposeHeaders: ["etag"] },
      { allowedMethods: ["PUT"], allowedOrigins: ["https://admin.test"], allowedHeaders: ["content-type", "authorization"], maxAgeSeconds: 300 },
    ]);
    await emu.control("POST", "/storage/objects", { bucket: "cors-objects", key: "a.css", content: "body{}", contentType: "text/css" });
    const preflight = (origin: string, method: string, headers?: string) =>
      fetch(`${b.endpoint}/a.css`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": method, ...(headers ? { "access-control-request-headers": headers } : {}) },
      });
    const ok = await preflight("https://admin.test", "PUT", "Content-Type");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://admin.test");
    expect(ok.headers.get("access-control-allow-methods")).toBe("PUT");
    expect(ok.headers.get("access-control-max-age")).toBe("300");
    expect((await preflight("https://admin.test", "PUT", "x-other")).status).toBe(403);
    expect((await preflight("https://evil.test", "GET")).status).toBe(403);
    const denied = await preflight("https://admin.test", "DELETE");
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as any).message).toContain("no CORS rule of bucket 'cors-objects' allows origin https://admin.test with DELETE");

    const got = await fetch(`${b.endpoint}/a.css`, { headers: { origin: "https://www.shop.test" } });
    expect(got.headers.get("access-control-allow-origin")).toBe("https://www.shop.test");
    expect(got.headers.get("access-control-expose-headers")).toBe("etag");
    expect((await fetch(`${b.endpoint}/a.css`, { headers: { origin: "https://shop.evil" } })).headers.get("access-control-allow-origin")).toBeNull();
  });

  test("DELETE of a bucket holding objects is refused unless force=true, which deletes them too", async () => {
    const api = emu.client();
    await api.create(buckets, { name: "full-bucket" });
    await api.put(`${buckets}/full-bucket/cors`, { rules: [{ allowedMethods: ["GET"], allowedOrigins: ["*"] }] });
    await emu.control("POST", "/storage/objects", { bucket: "full-bucket", key: "x", content: "1" });
    await emu.control("POST", "/storage/objects", { bucket: "full-bucket", key: "y", content: "2" });
    const refused = await failure(api.delete(`${buckets}/full-bucket`, { query: { force: false } }));
    expect(refused.status).toBe(409);
    expect(String(refused.messages)).toMatch(/Bucket 'full-bucket' holds 2 objects.*force=true/);
    expect(await emu.leftovers()).toEqual({ buckets: 1, bucketObjects: 2, bucketCorsRules: 1 });
    await api.delete(`${buckets}/full-bucket`, { query: { force: true } });
    expect(await emu.leftovers()).toEqual({});
  });
});

describe("CORS and policy", () => {
  test("CORS: {rules} or a bare array; rules validated; PUT replaces, DELETE removes all, GET is a page", async () => {
    const api = emu.client();
    await api.create(buckets, { name: "cors-bucket" });
    const cors = `${buckets}/cors-bucket/cors`;
    expect(await api.get(cors)).toEqual({ data: [], nextCursor: null });
    await api.put(cors, { rules: [{ allowedMethods: ["GET", "HEAD"], allowedOrigins: ["https://a.test"], maxAgeSeconds: 60 }] });
    expect(await api.list(cors)).toEqual([
      { allowedMethods: ["GET", "HEAD"], allowedOrigins: ["https://a.test"], allowedHeaders: null, exposeHeaders: null, maxAgeSeconds: 60 },
    ]);
    await api.put(cors, [
      { allowedMethods: ["PUT"], allowedOrigins: ["https://b.test"], allowedHeaders: ["content-type"] },
      { allowedMethods: ["GET"], allowedOrigins: ["*"] },
    ]);
    expect((await api.list<any>(cors)).map((r) => r.allowedOrigins[0])).toEqual(["https://b.test", "*"]);

    const bad = await failure(api.put(cors, { rules: [{ allowedMethods: ["PATCH"], allowedOrigins: [], maxAgeSeconds: -1 }] }));
    expect(bad.status).toBe(400);
    expect(bad.messages).toEqual(expect.arrayContaining([
      expect.stringContaining("rules.0.allowedMethods.0: must be one of GET, PUT, POST, DELETE, HEAD"),
      expect.stringContaining("rules.0.allowedOrigins: must list at least one origin"),
      expect.stringContaining("rules.0.maxAgeSeconds: must not be negative"),
    ]));
    expect(await api.list(cors)).toHaveLength(2);
    await api.delete(cors);
    expect(await api.list(cors)).toEqual([]);
  });

  test("policy: must be JSON; GET returns {policy} or null; DELETE makes the bucket private", async () => {
    const api = emu.client();
    await api.create(buckets, { name: "pol-bucket", visibility: "PUBLIC_READ" });
    const policy = `${buckets}/pol-bucket/policy`;
    expect(await api.get(policy)).toEqual({ policy: null });
    const notJson = await failure(api.put(policy, { policy: "{not json" }));
    expect(notJson.status).toBe(400);
    expect(String(notJson.messages)).toContain("policy: must be valid JSON");
    expect((await failure(api.put(policy, {}))).status).toBe(400);
    const doc = JSON.stringify({ statements: [{ effect: "allow", actions: ["read"], principals: ["*"] }] });
    await api.put(policy, { policy: doc });
    expect(await api.get(policy)).toEqual({ policy: doc });
    expect(await emu.leftovers()).toEqual({ buckets: 1, bucketPolicies: 1 });
    await api.delete(policy);
    expect(await api.get(policy)).toEqual({ policy: null });
    expect(await api.list(buckets)).toEqual([expect.objectContaining({ name: "pol-bucket", visibility: "PRIVATE", publicBaseUrl: null })]);
  });
});

test("storage access keys are listed by id, never with a secret, and the control API shows the secrets", async () => {
  const keys = await emu.client().list<any>(`/v1/workspaces/${ws}/storage/access-keys`);
  expect(keys).toHaveLength(2);
  for (const k of keys) {
    expect(Object.keys(k).sort()).toEqual(["accessKeyId", "createdAt", "id", "name", "updatedAt"]);
    expect(JSON.stringify(k)).not.toContain(emu.storageKeys.find((s) => s.accessKeyId === k.accessKeyId)!.secret);
  }
  const shown = await emu.control("GET", "/storage/access-keys");
  expect(shown.data.map((k: any) => k.accessKeyId).sort()).toEqual(keys.map((k) => k.accessKeyId).sort());
  expect(shown.data.every((k: any) => typeof k.secret === "string" && k.secret.length > 20)).toBe(true);
  const theirs = await emu.client(emu.keys.otherWorkspace).list<any>(`/v1/workspaces/${emu.otherWorkspaceId}/storage/access-keys`);
  expect(theirs.map((k) => k.accessKeyId)).not.toContain(keys[0].accessKeyId);
});
