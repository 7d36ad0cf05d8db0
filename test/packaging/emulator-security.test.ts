// The emulator's safety defaults as users get them: its package (@pulumi-cloudplatform/emulator)
// packed and installed, its `cloudplatform-emulator` command run. Serving beyond loopback needs a
// token, which the control API then asks for; a web page's simple POST and a rebinding Host are
// refused, however the path is spelled (issue 38's attacks, each replayed); the dashboard cannot be
// framed; the DNS server stays on loopback unless asked; the state is owner-only. Traffic goes to
// loopback only, even when the emulator listens on 0.0.0.0.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packEmulator } from "../../scripts/pack";

jest.setTimeout(900_000);

const TOKEN = "packed-test-token-0123456789abcdef";
let dir: string;
let bin: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cp-emu-pack-"));
  const npm = (args: string[], cwd: string) => execFileSync("npm", args, { cwd, stdio: "pipe", env: { ...process.env, npm_config_fund: "false", npm_config_audit: "false" } }).toString();
  const tarball = packEmulator(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "emu-user", version: "1.0.0", private: true }));
  // The emulator's own package, as a team adds it: no provider, no Pulumi.
  npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--save-dev", tarball], dir);
  bin = join(dir, "node_modules", ".bin", "cloudplatform-emulator");
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Env without a token the developer's shell may hold. */
const env = (extra: Record<string, string> = {}) => {
  const e = { ...process.env, ...extra };
  if (!extra.CLOUDPLATFORM_EMULATOR_TOKEN) delete e.CLOUDPLATFORM_EMULATOR_TOKEN;
  return e;
};

/** Starts the installed command; resolves with its JSON line, or rejects with its exit code and stderr. */
function start(args: string[], extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess; printed: any; local: string }> {
  const child = spawn(bin, ["--speed", "0", ...args], { cwd: dir, env: env(extraEnv), stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((ok, fail) => {
    child.stdout!.on("data", (d) => {
      out += d;
      if (!out.includes("\n")) return;
      const printed = JSON.parse(out.split("\n")[0]);
      ok({ child, printed, local: `http://127.0.0.1:${new URL(printed.baseUrl).port}` });
    });
    child.on("exit", (code) => fail(Object.assign(new Error(`exited ${code}: ${err}`), { code, stderr: err })));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((ok) => child.on("exit", ok));
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
}

/** A request with exactly this target and these headers (fetch normalises paths and does not let a caller set Host). */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const url = new URL(base);
  const sized = body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
  return new Promise((ok, fail) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: sized }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => ok({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    req.on("error", fail);
    req.end(body);
  });
}

/** Row counts of what users made, read as a tool would (with the token when there is one). */
async function counts(local: string, token?: string): Promise<Record<string, number>> {
  const res = await fetch(`${local}/_emulator/state`, { headers: token ? { "x-emulator-token": token } : {} });
  return ((await res.json()) as { counts: Record<string, number> }).counts;
}

async function makeProject(local: string, printed: any): Promise<void> {
  const res = await fetch(`${local}/v1/workspaces/${printed.workspaceId}/projects`, {
    method: "POST", headers: { authorization: `Bearer ${printed.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ name: "kept" }),
  });
  expect(res.status).toBe(201);
}

test("--help documents --control-token and --allowed-host", () => {
  const help = execFileSync(bin, ["--help"], { env: env() }).toString();
  expect(help).toMatch(/--control-token TOKEN\s+\S/);
  expect(help).toMatch(/--allowed-host NAME\s+\S/);
});

test("--host 0.0.0.0 without a token does not start, and says which flag to give", async () => {
  const refused = await start(["--host", "0.0.0.0"]).then(() => undefined, (e) => e);
  expect(refused?.code).toBe(1);
  expect(refused.stderr).toMatch(/--host 0\.0\.0\.0 serves beyond this machine.*--control-token TOKEN.*CLOUDPLATFORM_EMULATOR_TOKEN/);
});

test("--host 0.0.0.0 with a token: the control API needs it, the API keeps its keys, pages and rebinding are refused", async () => {
  const { child, printed, local } = await start(["--host", "0.0.0.0", "--control-token", TOKEN]);
  try {
    expect(JSON.stringify(printed)).not.toContain(TOKEN);
    const keys = `${local}/_emulator/storage/access-keys`;
    expect((await fetch(keys)).status).toBe(401);
    const got = await fetch(keys, { headers: { "x-emulator-token": TOKEN } });
    expect(got.status).toBe(200);
    expect((await fetch(`${local}/v1/me`, { headers: { authorization: `Bearer ${printed.apiKey}` } })).status).toBe(200);
    expect((await fetch(`${local}/_emulator/ui/api/summary`)).status).toBe(401);

    // A page's simple POST, even one that somehow held the token, and a rebinding Host.
    const host = new URL(local).host;
    expect((await raw(local, "POST", "/_emulator/reset", { host, origin: "http://evil.example", "x-emulator-token": TOKEN })).status).toBe(415);
    const rebound = await raw(local, "GET", "/_emulator/storage/access-keys", { host: "rebind.evil.example", "x-emulator-token": TOKEN });
    expect([rebound.status, rebound.body]).toEqual([403, expect.stringContaining("--allowed-host rebind.evil.example")]);

    // The outbox command takes the token from the environment.
    const outbox = execFileSync(bin, ["outbox", "--base-url", local], { env: env({ CLOUDPLATFORM_EMULATOR_TOKEN: TOKEN }) }).toString();
    expect(JSON.parse(outbox)).toEqual(expect.objectContaining({ data: [] }));
    execFileSync(bin, ["outbox", "--base-url", local, "--clear", "--control-token", TOKEN], { env: env() });
  } finally {
    await stop(child);
  }
});

test("issue 38's attacks on a loopback emulator: no spelling of the reset or of a secret's path works from another site, and the dashboard cannot be framed", async () => {
  const { child, printed, local } = await start([]);
  try {
    await makeProject(local, printed);
    const before = await counts(local);
    const host = new URL(local).host;
    const crossSite = { host, origin: "http://evil.example", "sec-fetch-site": "cross-site" };
    for (const path of ["/%5Femulator/reset", "/%5femulator/reset", "/_emulato%72/reset"]) {
      expect([path, (await raw(local, "POST", path, crossSite)).status]).toEqual([path, 415]);
      expect([path, (await raw(local, "POST", path, { ...crossSite, "content-type": "application/json" }, "")).status]).toEqual([path, 403]);
    }
    for (const path of ["/_emulator/storage/access-keys", "/%5Femulator/storage/access-keys", "/_emulator/ui/%61pi/summary"]) {
      const res = await raw(local, "GET", path, crossSite);
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.body).not.toContain(printed.storageKeys[0].secret);
    }
    expect(await counts(local)).toEqual(before);
    expect(before.projects).toBe(1);
    const page = await raw(local, "GET", "/_emulator/ui/", { host });
    expect([page.status, page.headers["x-frame-options"], page.headers["content-security-policy"]]).toEqual([200, "DENY", expect.stringContaining("frame-ancestors 'none'")]);
  } finally {
    await stop(child);
  }
});

test("issue 38's attacks on a shared emulator: without the token, every spelling answers 401 and nothing changes; the DNS server stays on loopback", async () => {
  const { child, printed, local } = await start(["--host", "0.0.0.0", "--control-token", TOKEN, "--dns-port", "0"]);
  try {
    expect(printed.dnsAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(printed.exposed).toEqual([expect.stringMatching(/^http 0\.0\.0\.0:\d+: /)]);
    await makeProject(local, printed);
    const before = await counts(local, TOKEN);
    const host = new URL(local).host;
    const json = { host, "content-type": "application/json" };
    const attempts: [string, string, string?][] = [
      ["GET", "/%5Femulator/storage/access-keys"],
      ["GET", "/_emulator/ui/%61pi/summary"],
      ["GET", "/_emulator/ui/%61pi/requests"],
      ["POST", "/%5Femulator/reset", ""],
      ["PUT", "/%5Femulator/rate-limit", JSON.stringify({ perMinute: 1 })],
      ["POST", "/%5Femulator/faults", JSON.stringify({ kind: "drop" })],
      ["GET", `http://${host}/_emulator/storage/access-keys`],
      ["POST", `http://${host}/_emulator/reset`, ""],
    ];
    for (const [method, path, body] of attempts) {
      const res = await raw(local, method, path, json, body);
      expect([method, path, res.status]).toEqual([method, path, 401]);
      expect(res.body).not.toContain(printed.storageKeys[0].secret);
    }
    // A foreign host in the absolute form is no way around the Host check.
    expect((await raw(local, "GET", "http://rebind.evil.example/_emulator/health", { host })).status).toBe(400);
    expect(await counts(local, TOKEN)).toEqual(before);
    expect(before.projects).toBe(1);
    const faults = await fetch(`${local}/_emulator/faults`, { headers: { "x-emulator-token": TOKEN } });
    expect(await faults.json()).toEqual({ data: [] });
  } finally {
    await stop(child);
  }
  // Asked for, the DNS server listens beyond loopback, and the startup line says so.
  const asked = await start(["--dns-port", "0", "--dns-host", "0.0.0.0"]);
  try {
    expect(asked.printed.dnsAddress).toMatch(/^0\.0\.0\.0:\d+$/);
    expect(asked.printed.exposed).toEqual([expect.stringMatching(/^dns 0\.0\.0\.0:\d+: the simulated public DNS, to anyone/)]);
  } finally {
    await stop(asked.child);
  }
});

test("--allowed-host NAME is answered; a rebinding name is refused on the API and the control routes", async () => {
  const { child, printed, local } = await start(["--allowed-host", "emulator"]);
  try {
    const port = new URL(local).port;
    expect((await raw(local, "GET", "/_emulator/health", { host: `emulator:${port}` })).status).toBe(200);
    expect((await raw(local, "GET", "/v1/me", { host: `rebind.evil.example:${port}`, authorization: `Bearer ${printed.apiKey}` })).status).toBe(403);
    expect((await raw(local, "GET", "/_emulator/ui/api/summary", { host: `rebind.evil.example:${port}` })).status).toBe(403);
  } finally {
    await stop(child);
  }
});

test("--state: the directory is 0700 and every file in it 0600", async () => {
  const state = join(dir, "state");
  const { child, printed, local } = await start(["--state", state]);
  try {
    await fetch(`${local}/v1/workspaces/${printed.workspaceId}/projects`, {
      method: "POST", headers: { authorization: `Bearer ${printed.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ name: "kept" }),
    });
    const walk = (p: string): string[] => [p, ...(statSync(p).isDirectory() ? readdirSync(p).flatMap((n) => walk(join(p, n))) : [])];
    for (const p of walk(state)) expect(`${p} ${(statSync(p).mode & 0o777).toString(8)}`).toBe(`${p} ${statSync(p).isDirectory() ? "700" : "600"}`);
  } finally {
    await stop(child);
  }
});
