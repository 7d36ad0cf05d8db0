// The emulator's safety defaults as users get them: its package (@pulumi-cloudplatform/emulator)
// packed and installed, its `cloudplatform-emulator` command run. Serving beyond loopback needs a token, which the control
// API then asks for; a web page's simple POST and a rebinding Host are refused; the state is
// owner-only. Traffic goes to loopback only, even when the emulator listens on 0.0.0.0.
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

/** A request with exactly these headers (fetch does not let a caller set Host). */
function raw(base: string, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((ok, fail) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => ok({ status: res.statusCode!, body }));
    });
    req.on("error", fail);
    req.end();
  });
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
