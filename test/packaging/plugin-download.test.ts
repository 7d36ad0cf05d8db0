// The plugin's download location: `make plugin` (scripts/make-plugin.sh) builds the release archives
// for each OS and architecture, laid out as the engine expects; a loopback HTTP server serves them
// where a release would (…/releases/download/v<version>/<archive>). A program outside the checkout
// (its own folder, a fresh PULUMI_HOME, no plugin on PATH) then gets the plugin the standard ways:
// `pulumi plugin install resource cloudplatform <version> --server <url>`, and automatic acquisition
// from the schema's pluginDownloadURL (pointed at the loopback server through
// PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES, in this test only); each time `up` (with a component, which
// the downloaded plugin constructs) and `destroy` work. The installed plugin also serves the Python
// SDK's unit-test mocks (`--mocks`).
import { execFile } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import * as cloud from "../../sdk/native";
import { openStack, ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { pluginArchives } from "../support/plugin-archives";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes } from "../support/stack";

jest.setTimeout(600_000);

const run = promisify(execFile);
const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
const SCHEMA_URL = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")).pluginDownloadURL as string;
const PLATFORMS = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64", "windows-arm64"];

let emu: TestEmulator;
let dir: string;
let server: Server;
let base: string;
/** The CLI's temporary files: it leaves each downloaded archive in TMPDIR (15 MB a run otherwise left in /tmp). */
let tmp: string;
const requested: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-release-"));
  tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const releases = join(dir, "releases", "download", `v${VERSION}`);
  await pluginArchives(releases);
  server = createServer((req, res) => {
    requested.push(req.url ?? "");
    const file = join(dir, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/gzip", "content-length": statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  emu = await emulator({ settings: { speed: 0 } });
  emu.emu.settings.dnsPropagationMs = 200;
}, 600_000);
afterAll(async () => {
  await emu?.close();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The entries of a .tar.gz, as tar lists them: name, and whether anyone may execute it. */
async function entries(archive: string): Promise<{ name: string; executable: boolean }[]> {
  const { stdout } = await run("tar", ["-tvzf", archive], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim().split("\n").map((line) => {
    const [mode, , , , , ...name] = line.trim().split(/\s+/);
    return { name: name.join(" "), executable: /^-..x..x..x/.test(mode) };
  });
}

test("make plugin builds one archive per OS and architecture, the launcher at the root, the package beside it", async () => {
  const releases = join(dir, "releases", "download", `v${VERSION}`);
  expect(readdirSync(releases).sort()).toEqual(PLATFORMS.map((p) => `pulumi-resource-cloudplatform-v${VERSION}-${p}.tar.gz`).sort());
  for (const p of PLATFORMS) {
    const list = await entries(join(releases, `pulumi-resource-cloudplatform-v${VERSION}-${p}.tar.gz`));
    const names = new Set(list.map((e) => e.name));
    const launcher = p.startsWith("windows") ? "pulumi-resource-cloudplatform.cmd" : "pulumi-resource-cloudplatform";
    expect([p, names.has(launcher)]).toEqual([p, true]);
    expect([p, list.filter((e) => !e.name.startsWith("package/")).map((e) => e.name)]).toEqual([p, [launcher]]);
    if (!p.startsWith("windows")) expect([p, list.find((e) => e.name === launcher)!.executable]).toEqual([p, true]);
    for (const f of ["package/bin/pulumi-resource-cloudplatform", "package/dist/provider/plugin/main.js", "package/dist/testing/mocksServer.js", "package/schema.json", "package/node_modules/@pulumi/pulumi/package.json"]) {
      expect([p, f, names.has(f)]).toEqual([p, f, true]);
    }
    // the emulator and the testing kit (but its mocks server) are not part of the plugin
    expect([p, [...names].some((n) => n.startsWith("package/dist/emulator/") || n.startsWith("package/node_modules/@electric-sql/") || n === "package/dist/testing/index.js")]).toEqual([p, false]);
  }
});

/** Each run's state folder; its PULUMI_HOME is `home` inside it. */
const stateDir = (label: string) => join(dir, `${label}-state`);
const homeOf = (label: string) => join(stateDir(label), "home");

/** A zone, its verification and a VerifiedMailDomain, run from a folder outside the checkout with its own PULUMI_HOME and no plugin on PATH. */
async function upAndDestroy(label: string, env: Record<string, string> = {}): Promise<void> {
  const zone = `${label}.download.test`;
  await emu.control("POST", "/dns/delegations", { domain: zone });
  const work = join(dir, `${label}-work`);
  mkdirSync(work);
  const s = await openStack({
    programDir: work,
    stateDir: stateDir(label),
    stackName: label,
    program: {
      projectName: `download-${label}`,
      run: async () => {
        const z = new cloud.DnsZone("zone", { name: zone });
        const proven = new cloud.DnsZoneVerification("zone", { zoneId: z.id, timeout: "30s" });
        const mail = new cloud.VerifiedMailDomain("news", { name: `news.${zone}`, zoneId: proven.zoneId, timeout: "30s" }, { dependsOn: [proven] });
        return { status: mail.status };
      },
    },
    env: {
      // node for the launcher, the CLI; nothing else, so no plugin is found on PATH
      PATH: `${TOOLS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`,
      PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
      CLOUDPLATFORM_BASE_URL: emu.baseUrl,
      CLOUDPLATFORM_API_KEY: emu.apiKey,
      TMPDIR: tmp,
      ...env,
    },
  });
  try {
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 7 });
    expect(up.outputs.status.value).toBe("VERIFIED");
    expect(up.stdout).not.toContain("from $PATH");
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
}

const installed = (home: string) => join(home, "plugins", `resource-cloudplatform-v${VERSION}`);
const platform = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;

test("pulumi plugin install --server <release URL> installs the plugin; a program outside the checkout runs up and destroy with it", async () => {
  const home = homeOf("install");
  mkdirSync(home, { recursive: true });
  const server = `${base}/releases/download/v\${VERSION}`;
  await run(join(TOOLS_BIN, "pulumi"), ["plugin", "install", "resource", "cloudplatform", VERSION, "--server", server], {
    env: { ...process.env, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true", TMPDIR: tmp },
  });
  expect(requested).toContain(`/releases/download/v${VERSION}/pulumi-resource-cloudplatform-v${VERSION}-${platform}.tar.gz`);
  expect(existsSync(join(installed(home), "pulumi-resource-cloudplatform"))).toBe(true);
  await upAndDestroy("install");

  // The Python SDK's unit-test mocks find the installed plugin, which serves them (--mocks).
  const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, PULUMI_HOME: home };
  const found = await run(join(ROOT, ".venv", "bin", "python"), ["-c", "import json; from pulumi_cloudplatform.testing import plugin_command; print(json.dumps(plugin_command()))"], { env });
  const command = JSON.parse(found.stdout) as string[];
  expect(command).toEqual([join(installed(home), "pulumi-resource-cloudplatform"), "--mocks"]);
  const served = execFile(command[0], command.slice(1), { env });
  served.stdin!.end(`${JSON.stringify({ id: 1, op: "newResource", args: { type: "cloudplatform:index:Bucket", name: "b", inputs: { name: "Bad_Name" } } })}\n`);
  const answer = await new Promise<string>((resolve) => served.stdout!.once("data", (d) => resolve(String(d))));
  expect(JSON.parse(answer)).toEqual({ id: 1, error: "cloudplatform:index:Bucket resource 'b' has a problem: name: must be 3 to 63 characters: lowercase letters, digits, '.' and '-'" });
});

test("with acquisition on, the engine downloads the plugin from the schema's pluginDownloadURL (overridden to the loopback server)", async () => {
  requested.length = 0;
  // The override maps the schema's source (a GitHub repository's releases) to the loopback server,
  // laid out as the release's download URLs are.
  const override = `^${SCHEMA_URL.replace(/[.]/g, "\\.")}$=${base}/releases/download/v\${VERSION}`;
  await upAndDestroy("auto", { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false", PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: override });
  expect(requested).toEqual([`/releases/download/v${VERSION}/pulumi-resource-cloudplatform-v${VERSION}-${platform}.tar.gz`]);
  expect(existsSync(join(installed(homeOf("auto")), "pulumi-resource-cloudplatform"))).toBe(true);
});
