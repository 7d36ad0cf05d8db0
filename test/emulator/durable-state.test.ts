// `--state DIR` through the CLI, as users run it: a SIGKILL during a burst of writes loses none that
// was answered; changes made by the lifecycle (cron runs on the emulator clock), DNS delegations,
// external records and the propagation delay survive a restart, so a verified mail domain still
// verifies and sends; SIGTERM lets a request under way finish and keeps its write; a legacy JSON
// state file loads.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { startEmulator } from "../../emulator";
import { readState } from "../../emulator/journal";
import { waitFor } from "../support/helpers";

jest.setTimeout(120_000);

// CLOUDPLATFORM_EMULATOR_CLI runs these against another build (to check that they fail without the durable store).
const CLI = process.env.CLOUDPLATFORM_EMULATOR_CLI ?? join(__dirname, "../../dist/emulator/cli.js");

interface Info { baseUrl: string; workspaceId: string; apiKey: string; keys: Record<string, string> }
interface Cli { proc: ChildProcess; info: Info; exited: Promise<number | null> }

const procs: ChildProcess[] = [];
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cp-durable-"));
});
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function startCli(...args: string[]): Promise<Cli> {
  const proc = spawn(process.execPath, [CLI, "--speed", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  procs.push(proc);
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  const line = await new Promise<string>((ok, fail) => {
    createInterface({ input: proc.stdout! }).once("line", ok);
    proc.once("exit", (code) => fail(new Error(`the emulator exited with ${code}`)));
  });
  return { proc, info: JSON.parse(line), exited };
}

async function kill(cli: Cli, signal: NodeJS.Signals = "SIGKILL"): Promise<number | null> {
  cli.proc.kill(signal);
  return cli.exited;
}

/** One client: its own connection to the emulator. */
function api(info: Info, key = info.apiKey) {
  const agent = new Agent({ connections: 1 });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await request(`${info.baseUrl}${path}`, {
      method: method as "GET", dispatcher: agent,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
  };
  return { call, close: () => agent.destroy() };
}

async function control(info: Info, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${info.baseUrl}/_emulator${path}`, {
    method, headers: method === "GET" ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** Resolves once the fault has matched its one request: that request is held up by its latency now. */
const held = (info: Info) => waitFor(async () => (await control(info, "GET", "/faults")).data.every((f: { count: number }) => f.count === 0), { what: "the slow request to reach the emulator" });
/** Resolves once the emulator refuses new connections (it has begun shutting down). */
const refusing = (info: Info) => waitFor(() => fetch(`${info.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${info.apiKey}` } }).then(() => false, () => true), { what: "new connections to be refused" });

async function allProjects(info: Info): Promise<Map<string, any>> {
  const c = api(info);
  const out = new Map<string, any>();
  let cursor: string | null = null;
  do {
    const page: { body: { data: any[]; nextCursor: string | null } } = await c.call("GET", `/v1/workspaces/${info.workspaceId}/projects?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    for (const p of page.body.data) out.set(p.id, p);
    cursor = page.body.nextCursor;
  } while (cursor);
  await c.close();
  return out;
}

test("SIGKILL during a burst of creates and updates from 8 clients: every write answered 2xx is there after a restart", async () => {
  const state = join(dir, "burst");
  const first = await startCli("--state", state);
  const created = new Map<string, string>();
  /** The version of each project's description last answered 200; a later one may have landed unanswered. */
  const patched = new Map<string, number>();
  let stop = false;
  // The kill lands as an answer arrives: an answered write must already be on disk.
  const acknowledged = () => {
    if (created.size === 400) first.proc.kill("SIGKILL");
  };
  const clients = Array.from({ length: 8 }, async (_, c) => {
    const client = api(first.info);
    let mine: string | undefined;
    try {
      for (let i = 0; !stop; i++) {
        if (mine && i % 3 === 2) {
          const r = await client.call("PATCH", `/v1/projects/${mine}`, { description: `v${i}` });
          if (r.status === 200) patched.set(mine, i);
          continue;
        }
        // Rows of about 2 KB, as a real state's are.
        const r = await client.call("POST", `/v1/workspaces/${first.info.workspaceId}/projects`, { name: `c${c}-${i}`, description: "d".repeat(1_000) });
        if (r.status === 201) created.set(r.body.id, r.body.name);
        acknowledged();
        mine = r.body?.id;
      }
    } catch {
      // the connection went down with the emulator
    } finally {
      await client.close();
    }
  });
  await first.exited;
  stop = true;
  await Promise.all(clients);

  const second = await startCli("--state", state);
  expect(second.info.apiKey).toBe(first.info.apiKey);
  const found = await allProjects(second.info);
  const lost = [...created].filter(([id, name]) => found.get(id)?.name !== name);
  expect(lost).toEqual([]);
  const stale = [...patched].filter(([id, v]) => !(Number(/^v(\d+)$/.exec(found.get(id)?.description ?? "")?.[1]) >= v));
  expect(stale).toEqual([]);
  await kill(second, "SIGTERM");
});

test("what the lifecycle made (cron runs on the emulator clock), delegations, external records and the propagation delay survive a SIGKILL; the verified mail domain still verifies and sends", async () => {
  const state = join(dir, "lifecycle");
  const first = await startCli("--state", state);
  const a = api(first.info);
  const ws = first.info.workspaceId;

  // A mail domain verified in a platform zone delegated through the control API, with a propagation delay.
  await control(first.info, "PUT", "/dns/propagation", { dnsPropagationMs: 2_000 });
  await control(first.info, "POST", "/dns/delegations", { domain: "durable-shop.test" });
  await control(first.info, "POST", "/dns/records", { name: "elsewhere.test", type: "TXT", value: "kept" });
  const zone = (await a.call("POST", `/v1/workspaces/${ws}/dns-zones`, { name: "durable-shop.test" })).body;
  expect((await a.call("POST", `/v1/dns-zones/${zone.id}/verify`)).body.published).toBe(true);
  const added = (await a.call("POST", `/v1/workspaces/${ws}/mail/domains`, { name: "mail.durable-shop.test" })).body;
  for (const r of added.records) {
    await a.call("POST", `/v1/dns-zones/${zone.id}/records`, { name: r.zoneHost, type: r.type, content: r.value, ...(r.priority !== null ? { priority: r.priority } : {}) });
  }
  await control(first.info, "POST", "/time", { advanceMs: 3_000 });
  expect((await a.call("POST", `/v1/domains/${added.domain.id}/verify`)).body.domain.status).toBe("VERIFIED");

  // A cron job that runs every minute: an hour on the emulator clock, and a read makes its runs. The kill follows the read.
  const project = (await a.call("POST", `/v1/workspaces/${ws}/projects`, { name: "jobs" })).body;
  const env = (await a.call("POST", `/v1/projects/${project.id}/environments`, { name: "prod" })).body;
  const job = (await a.call("POST", `/v1/environments/${env.id}/services`, { name: "tick", type: "CRON", image: "alpine:3", schedule: "* * * * *" })).body;
  await control(first.info, "POST", "/time", { advanceMs: 60 * 60_000 });
  const runs = (await a.call("GET", `/v1/services/${job.id}/runs?limit=100`)).body.data;
  expect(runs.length).toBeGreaterThan(30);
  await a.close();
  await kill(first);

  const second = await startCli("--state", state);
  const b = api(second.info);
  const again = (await b.call("GET", `/v1/services/${job.id}/runs?limit=100`)).body.data;
  const byId = new Map(again.map((r: any) => [r.id, r]));
  expect(runs.filter((r: any) => (byId.get(r.id) as any)?.seq !== r.seq)).toEqual([]);
  expect(new Set(again.map((r: any) => r.createdAt)).size).toBe(again.length);
  expect(await control(second.info, "GET", "/dns/propagation")).toEqual({ dnsPropagationMs: 2_000 });
  expect((await control(second.info, "GET", "/dns/delegations")).data).toContain("durable-shop.test");
  expect((await control(second.info, "GET", "/dns/records")).data).toEqual([expect.objectContaining({ name: "elsewhere.test", value: "kept" })]);
  const verified = (await b.call("POST", `/v1/domains/${added.domain.id}/verify`)).body;
  expect(verified.domain).toMatchObject({ status: "VERIFIED", failingRecords: [] });
  const mail = api(second.info, second.info.keys.mail);
  const sent = await mail.call("POST", "/v1/emails", { from: "Shop <hello@mail.durable-shop.test>", to: "ada@example.test", subject: "Still here", text: "After a restart" });
  expect(sent.status).toBe(202);
  await Promise.all([b.close(), mail.close()]);
  await kill(second, "SIGTERM");
});

test("SIGTERM while a slow write is under way: new connections are refused, the write is answered, and it is there after a restart", async () => {
  const state = join(dir, "shutdown");
  const first = await startCli("--state", state);
  await control(first.info, "POST", "/faults", { kind: "latency", method: "POST", path: `/v1/workspaces/${first.info.workspaceId}/projects`, latencyMs: 1_500, count: 1 });
  const a = api(first.info);
  let settled = false;
  const slow = a.call("POST", `/v1/workspaces/${first.info.workspaceId}/projects`, { name: "slow" }).finally(() => { settled = true; });
  await held(first.info);
  first.proc.kill("SIGTERM");
  await refusing(first.info);
  // Refused while the slow write was still under way.
  expect(settled).toBe(false);
  const answered = await slow;
  expect(answered.status).toBe(201);
  // Its connection, kept alive by the client, does not hold the shutdown up.
  expect(await Promise.race([first.exited, new Promise((r) => setTimeout(() => r("still running 5 s later"), 5_000))])).toBe(0);
  await a.close();

  const second = await startCli("--state", state);
  expect((await allProjects(second.info)).get(answered.body.id)).toMatchObject({ name: "slow" });
  // A second signal during shutdown stops at once, keeping what was written.
  await control(second.info, "POST", "/faults", { kind: "latency", method: "POST", latencyMs: 5_000, count: 1 });
  const b = api(second.info);
  const hanging = b.call("POST", `/v1/workspaces/${second.info.workspaceId}/projects`, { name: "hanging" }).catch(() => undefined);
  await held(second.info);
  second.proc.kill("SIGTERM");
  await refusing(second.info);
  expect(await kill(second, "SIGTERM")).toBe(1);
  await hanging;
  await b.close();
  const third = await startCli("--state", state);
  expect((await allProjects(third.info)).get(answered.body.id)).toMatchObject({ name: "slow" });
  await kill(third, "SIGTERM");
});

test("close() lets a request under way finish before it closes what requests use (the close event, then the databases)", async () => {
  const emu = await startEmulator({ stateFile: join(dir, "order") });
  const order: string[] = [];
  emu.emu.on("close", () => order.push("closing what requests use"));
  emu.emu.faults.add({ kind: "latency", method: "POST", latencyMs: 500, count: 1 });
  const arrived = new Promise<void>((r) => emu.app.server.once("request", (_req, res) => {
    res.once("finish", () => order.push(`answered ${res.statusCode}`));
    r();
  }));
  const slow = fetch(`${emu.baseUrl}/v1/workspaces/${emu.workspaceId}/projects`, {
    method: "POST", headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ name: "in-flight" }),
  });
  await arrived;
  await emu.close();
  expect((await slow).status).toBe(201);
  expect(order).toEqual(["answered 201", "closing what requests use"]);
});

test("a change that cannot be written is answered 500 naming the journal, and the next write carries it", async () => {
  const state = join(dir, "unwritable");
  const emu = await startEmulator({ stateFile: state });
  const post = (name: string) => fetch(`${emu.baseUrl}/v1/workspaces/${emu.workspaceId}/projects`, {
    method: "POST", headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ name }),
  });
  const sink = (emu.emu.store as any).sink;
  const write = sink.write.bind(sink);
  sink.write = () => {
    sink.write = write;
    throw new Error(`cannot write the state journal ${state}/journal-1.jsonl: ENOSPC: no space left on device`);
  };
  const failed = await post("first");
  expect(failed.status).toBe(500);
  expect(await failed.json()).toMatchObject({ statusCode: 500, message: expect.stringContaining(`${state}/journal-1.jsonl: ENOSPC`) });
  expect((await post("second")).status).toBe(201);
  await emu.close();
  expect(readState(state).tables.projects.map((p: any) => p.name).sort()).toEqual(["first", "second"]);
});

test("a legacy JSON state file loads: the same keys and objects, then the state goes on in the directory", async () => {
  // The legacy format is the store as one JSON document, as the emulator wrote it before.
  const legacy = join(dir, "legacy.json");
  const old = await startEmulator();
  const p = await fetch(`${old.baseUrl}/v1/workspaces/${old.workspaceId}/projects`, {
    method: "POST", headers: { authorization: `Bearer ${old.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ name: "from-v1" }),
  }).then((r) => r.json() as Promise<{ id: string }>);
  writeFileSync(legacy, JSON.stringify(old.emu.store.toJSON()));
  await old.close();

  const cli = await startCli("--state", legacy);
  expect(cli.info.apiKey).toBe(old.apiKey);
  expect((await allProjects(cli.info)).get(p.id)).toMatchObject({ name: "from-v1" });
  await kill(cli, "SIGTERM");
});
