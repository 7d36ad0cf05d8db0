// Storage (§4.8): buckets, their CORS rules and policy, and storage access keys, through the real
// client as users would call them. The S3 endpoint that serves objects is tested in s3.test.ts.
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

  test("endpoint is the region's S3 endpoint, served by the emulator; publicBaseUrl only for PUBLIC_READ", async () => {
    const api = emu.client();
    const priv = await api.create<any>(buckets, { name: "private-one" });
    const pub = await api.create<any>(buckets, { name: "public-one", visibility: "PUBLIC_READ" });
    const eu = await api.create<any>(buckets, { name: "eu-one" }, { query: { region: "eu-central-1" } });
    expect(priv.endpoint).toBe(`${emu.baseUrl}/_storage/af-west-1`);
    expect(eu.endpoint).toBe(`${emu.baseUrl}/_storage/eu-central-1`);
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
  test("POST /_emulator/storage/objects puts an object the S3 endpoint serves; a bad key is 400 naming it", async () => {
    await emu.client().create(buckets, { name: "ctl-bucket", visibility: "PUBLIC_READ" });
    const put = await emu.control("POST", "/storage/objects", { bucket: "ctl-bucket", key: "a/b.txt", content: "aGk=", encoding: "base64", contentType: "text/plain" });
    expect(put).toMatchObject({ key: "a/b.txt", size: 2, etag: "49f68a5c8493ec2c0bf489821c21fc3b", contentType: "text/plain" });
    const got = await fetch(`${emu.baseUrl}/_storage/af-west-1/ctl-bucket/a/b.txt`);
    expect([got.status, got.headers.get("content-type"), await got.text()]).toEqual([200, "text/plain", "hi"]);
    const long = await fetch(`${emu.baseUrl}/_emulator/storage/objects`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ bucket: "ctl-bucket", key: "k".repeat(1025), content: "x" }),
    });
    expect([long.status, ((await long.json()) as any).message]).toEqual([400, "key: must be 1 to 1024 bytes in UTF-8 (this one is 1025)"]);
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
