// The client's cursor walk: several pages from the emulator, the query kept on every page, the
// page shapes it tolerates, and a server that loops.
import { MockAgent } from "undici";
import { z } from "zod";
import { CloudPlatformClient, ResponseValidationError } from "../../provider/client";
import { V1Project } from "../../provider/api/projects";
import { emulator, type TestEmulator } from "../support/emulator";
import { RecordingAgent } from "../support/helpers";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => emu?.close());

const projectsPath = () => `/v1/workspaces/${emu.workspaceId}/projects`;

afterAll(() => RecordingAgent.closeAll());

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("against the emulator", () => {
  const names = Array.from({ length: 45 }, (_, i) => `shop-${String(i + 1).padStart(2, "0")}`);
  beforeAll(async () => {
    await emu.control("POST", "/reset");
    const c = emu.client();
    for (const name of names) await c.create(projectsPath(), { name });
  });

  test("walks three pages of 20, 20 and 5, newest first, each item once", async () => {
    const rec = new RecordingAgent();
    const c = emu.client(undefined, { dispatcher: rec });
    const items = await collect(c.paginate(projectsPath(), { pageSize: 20, item: V1Project }));
    expect(items.map((p) => p.name)).toEqual([...names].reverse());
    expect(rec.urls).toHaveLength(3);
    expect(rec.urls[0].searchParams.get("limit")).toBe("20");
    expect(rec.urls[0].searchParams.has("cursor")).toBe(false);
    for (const u of rec.urls.slice(1)) {
      expect(u.searchParams.get("cursor")).toBeTruthy();
      // The cursor carries the page size; the spec ignores limit next to a cursor.
      expect(u.searchParams.has("limit")).toBe(false);
    }
  });

  test("search and other query parameters are sent unchanged with every page", async () => {
    const rec = new RecordingAgent();
    const c = emu.client(undefined, { dispatcher: rec });
    const items = await c.list(projectsPath(), { query: { search: "shop", region: "af-west-1", tag: ["a", "b"], skip: undefined, none: null } });
    expect(items).toHaveLength(45);
    expect(rec.urls).toHaveLength(3);
    for (const u of rec.urls) {
      expect(u.pathname).toBe(projectsPath());
      expect(u.searchParams.get("search")).toBe("shop");
      expect(u.searchParams.get("region")).toBe("af-west-1");
      expect(u.searchParams.getAll("tag")).toEqual(["a", "b"]);
      expect(u.searchParams.has("skip")).toBe(false);
      expect(u.searchParams.has("none")).toBe(false);
    }
  });

  test("a walk can stop early, fetching only the pages it needed", async () => {
    const rec = new RecordingAgent();
    const c = emu.client(undefined, { dispatcher: rec });
    let n = 0;
    for await (const _ of c.paginate(projectsPath(), { pageSize: 10 })) if (++n === 15) break;
    expect(rec.urls).toHaveLength(2);
  });

  test("an item that does not fit the item schema is an error naming the field", async () => {
    const c = emu.client();
    const strict = z.looseObject({ id: z.string(), nonexistent: z.string() });
    await expect(collect(c.paginate(projectsPath(), { item: strict }))).rejects.toThrow(/unexpected item shape: nonexistent/);
  });
});

describe("page shapes (MockAgent)", () => {
  let agent: MockAgent;
  let client: CloudPlatformClient;
  const JSON_HEADERS = { headers: { "content-type": "application/json" } };
  const atCursor = (cursor: string | null) => (path: string) => {
    const u = new URL(path, "http://x");
    return u.pathname === "/things" && u.searchParams.get("cursor") === cursor;
  };
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    client = new CloudPlatformClient({ apiKey: emu.apiKey, baseUrl: "http://api.test", insecure: true, dispatcher: agent, retry: { maxRetries: 0 } });
  });
  afterEach(async () => {
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
  const pool = () => agent.get("http://api.test");

  test("{data, nextCursor} with a null cursor at the end", async () => {
    pool().intercept({ path: atCursor(null) }).reply(200, { data: [1, 2], nextCursor: "c1" }, JSON_HEADERS);
    pool().intercept({ path: atCursor("c1") }).reply(200, { data: [3], nextCursor: null }, JSON_HEADERS);
    expect(await client.list("/things")).toEqual([1, 2, 3]);
  });

  test("{items, next_cursor} with an empty cursor at the end", async () => {
    pool().intercept({ path: atCursor(null) }).reply(200, { items: ["a"], next_cursor: "n1" }, JSON_HEADERS);
    pool().intercept({ path: atCursor("n1") }).reply(200, { items: ["b"], next_cursor: "" }, JSON_HEADERS);
    expect(await client.list("/things")).toEqual(["a", "b"]);
  });

  test("a bare array is one page", async () => {
    pool().intercept({ path: atCursor(null) }).reply(200, [{ id: 1 }, { id: 2 }], JSON_HEADERS);
    expect(await client.list("/things")).toEqual([{ id: 1 }, { id: 2 }]);
  });

  test("an empty page ends the walk", async () => {
    pool().intercept({ path: atCursor(null) }).reply(200, { data: [] }, JSON_HEADERS);
    expect(await client.list("/things")).toEqual([]);
  });

  test("items are checked with the item schema, unknown fields kept", async () => {
    pool().intercept({ path: atCursor(null) }).reply(200, {
      data: [{ id: "p", workspaceId: "w", name: "n", tier: "PLATINUM" }], nextCursor: null,
    }, JSON_HEADERS);
    expect(await client.list("/things", { item: V1Project })).toEqual([expect.objectContaining({ id: "p", tier: "PLATINUM", paused: false })]);
  });

  test("a repeated cursor stops the walk with an error", async () => {
    pool().intercept({ path: atCursor(null) }).reply(200, { data: [1], nextCursor: "A" }, JSON_HEADERS);
    pool().intercept({ path: atCursor("A") }).reply(200, { data: [2], nextCursor: "A" }, JSON_HEADERS);
    const seen: unknown[] = [];
    const walk = (async () => {
      for await (const x of client.paginate("/things")) seen.push(x);
    })();
    await expect(walk).rejects.toBeInstanceOf(ResponseValidationError);
    await expect(walk).rejects.toThrow(/same cursor twice/);
    expect(seen).toEqual([1, 2]);
  });

  test("a cursor loop over several pages is caught too", async () => {
    pool().intercept({ path: atCursor(null) }).reply(200, { data: [1], nextCursor: "A" }, JSON_HEADERS);
    pool().intercept({ path: atCursor("A") }).reply(200, { data: [2], nextCursor: "B" }, JSON_HEADERS);
    pool().intercept({ path: atCursor("B") }).reply(200, { data: [3], nextCursor: "A" }, JSON_HEADERS);
    await expect(client.list("/things")).rejects.toThrow(/same cursor twice/);
  });
});
