// The client's HTTP transport: undici's agent, retrying agent and request API taken from their own
// modules, so a provider process does not load undici's index (fetch, WebSocket, caches, mocks,
// cookies and, through them, Node's own undici: about 9 MB and 90 ms of CPU per process); the
// same classes as the index's; and undici loaded whole when its layout is another one.
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";

let server: Server;
let origin: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume().on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`${req.method} ${req.url}`));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

test("a provider process loads neither undici's index nor its web modules", () => {
  // Node's own loader on the built provider, as a provider process loads it (Jest's registry is not Node's).
  const out = execFileSync(process.execPath, ["-e", `
    const { readdirSync } = require("node:fs");
    const dist = ${JSON.stringify(join(ROOT, "dist", "provider"))};
    require(dist + "/plugin/server.js");
    for (const f of readdirSync(dist + "/dynamic")) if (f.endsWith(".js")) require(dist + "/dynamic/" + f);
    const loaded = Object.keys(require.cache).filter((f) => f.includes("/node_modules/undici/")).map((f) => f.split("/node_modules/undici/")[1]);
    const t = require(dist + "/client/transport.js");
    const u = require("undici");
    console.log(JSON.stringify({ loaded, whole: t.loadedWhole, same: [t.Agent === u.Agent, t.RetryAgent === u.RetryAgent] }));
  `], { cwd: ROOT, encoding: "utf8" });
  const r = JSON.parse(out) as { loaded: string[]; whole: boolean; same: boolean[] };
  expect(r.loaded).toContain("lib/dispatcher/agent.js");
  expect(r.loaded.filter((f) => f === "index.js" || f.startsWith("lib/web/") || f.startsWith("lib/mock/") || f.startsWith("lib/cache/"))).toEqual([]);
  // The installed undici has the layout the transport was written for, and its parts are the index's.
  expect(r.whole).toBe(false);
  expect(r.same).toEqual([true, true]);
});

test("request: an absolute URL's path and query reach the server, through a given agent or undici's global one", async () => {
  const { Agent, request } = await import("../../provider/client/transport");
  const agent = new Agent();
  try {
    const a = await request(`${origin}/v1/projects?limit=2&cursor=a%20b`, { method: "GET", dispatcher: agent });
    expect([a.statusCode, await a.body.text()]).toEqual([200, "GET /v1/projects?limit=2&cursor=a%20b"]);
    const b = await request(`${origin}/upload/key`, { method: "PUT", body: "bytes" });
    expect([b.statusCode, await b.body.text()]).toEqual([200, "PUT /upload/key"]);
  } finally {
    await agent.close();
  }
});

test("an undici laid out otherwise is loaded whole, and requests still go through", async () => {
  // The built transport beside an undici that has only its index (which is the real one).
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-transport-"));
  try {
    mkdirSync(join(dir, "node_modules", "undici"), { recursive: true });
    copyFileSync(join(ROOT, "dist", "provider", "client", "transport.js"), join(dir, "transport.js"));
    writeFileSync(join(dir, "node_modules", "undici", "package.json"), JSON.stringify({ name: "undici", main: "index.js" }));
    writeFileSync(join(dir, "node_modules", "undici", "index.js"), `module.exports = require(${JSON.stringify(require.resolve("undici"))});`);
    const out = await new Promise<string>((done, fail) => execFile(process.execPath, ["-e", `
      const t = require("./transport.js");
      const agent = new t.Agent();
      t.request(${JSON.stringify(`${origin}/v1/me?x=1`)}, { method: "GET", dispatcher: new t.RetryAgent(agent, { maxRetries: 0 }) })
        .then(async (r) => { console.log(JSON.stringify({ whole: t.loadedWhole, status: r.statusCode, text: await r.body.text() })); await agent.close(); });
    `], { cwd: dir, encoding: "utf8" }, (err, stdout) => (err ? fail(err) : done(stdout))));
    expect(JSON.parse(out)).toEqual({ whole: true, status: 200, text: "GET /v1/me?x=1" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
