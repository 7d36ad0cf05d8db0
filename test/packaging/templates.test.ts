// The `pulumi new` templates (templates/<language>), as the README's install section uses them.
// Each pins the package's own version. `pulumi new <template> --generate-only` writes a project
// with its name substituted that compiles (TypeScript against this checkout's package, Python
// byte-compiled, Go formatted). The YAML one goes all the way with no package to install, as the
// README's install block (run here as written) does: `pulumi new --yes --config
// cloudplatform:baseUrl=…` saves the address, the key goes in as a secret, and up and destroy run
// through the CLI; asked interactively, `pulumi new` prompts for both and stores the key encrypted. Installing each language's packages by name from registries, and up and
// destroy of the TypeScript, Python and Go programs, is test/packaging/registries.test.ts
// (`make test-full`).
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { PYTHON, TSC } from "../support/toolchains";
import { shBlocks } from "../docs/shell-blocks";

jest.setTimeout(300_000);

const run = promisify(execFile);
const TEMPLATES = join(ROOT, "templates");
const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")) as { pluginDownloadURL: string };

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-templates-"));
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The CLI's environment: the plugin (bin/) and the CLI on PATH, a backend and home of the test's own, no credentials. */
function cliEnv(): NodeJS.ProcessEnv {
  for (const d of ["backend", "home"]) mkdirSync(join(dir, d), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(ROOT, "bin")}:${TOOLS_BIN}:${process.env.PATH}`,
    PULUMI_HOME: join(dir, "home"),
    PULUMI_BACKEND_URL: `file://${join(dir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "cloudplatform-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  // The program's config must be what reaches the provider.
  delete env.CLOUDPLATFORM_BASE_URL;
  delete env.CLOUDPLATFORM_API_KEY;
  return env;
}

const pulumi = (args: string[], cwd: string, input?: string) =>
  new Promise<string>((resolve, reject) => {
    const child = execFile(join(TOOLS_BIN, "pulumi"), args, { cwd, env: cliEnv(), timeout: 240_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`pulumi ${args.join(" ")}: ${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout));
    child.stdin!.end(input ?? "");
  });

test("each template pins this release: the packages' ranges start at package.json's version, the YAML declaration names the plugin's download URL", () => {
  const [major, minor] = VERSION.split(".").map(Number);
  expect(JSON.parse(readFileSync(join(TEMPLATES, "typescript", "package.json"), "utf8")).dependencies["pulumi-cloudplatform"]).toBe(`^${VERSION}`);
  expect(readFileSync(join(TEMPLATES, "python", "requirements.txt"), "utf8")).toContain(`pulumi-cloudplatform>=${VERSION},<${major}.${minor + 1}.0\n`);
  const decl = readFileSync(join(TEMPLATES, "yaml", "sdks", "cloudplatform.yaml"), "utf8");
  expect(decl).toBe(`packageDeclarationVersion: 1\nname: cloudplatform\nversion: ${VERSION}\ndownloadUrl: ${SCHEMA.pluginDownloadURL}\n`);
  // Go takes the newest release of the SDK's module when the project's dependencies are installed (go mod tidy).
  expect(readFileSync(join(TEMPLATES, "go", "go.mod"), "utf8")).not.toContain("pulumi-cloudplatform");
});

test("pulumi new --generate-only: TypeScript, Python and Go projects with their names substituted, that compile", async () => {
  const made: Record<string, string> = {};
  for (const language of ["typescript", "python", "go"]) {
    made[language] = join(dir, `new-${language}`);
    await pulumi(["new", join(TEMPLATES, language), "--generate-only", "--yes", "--name", `shop-${language}`, "--dir", made[language]], dir);
    const project = readFileSync(join(made[language], "Pulumi.yaml"), "utf8");
    expect([language, project.split("\n")[0]]).toEqual([language, `name: shop-${language}`]);
  }
  // TypeScript: the program type-checks with this checkout's package as its pulumi-cloudplatform.
  symlinkSync(join(ROOT, "node_modules"), join(made.typescript, "node_modules"));
  expect(readFileSync(join(made.typescript, "index.ts"), "utf8")).toContain('name: "shop-typescript"');
  await run(TSC, ["--noEmit", "-p", made.typescript]);
  expect(readFileSync(join(made.python, "__main__.py"), "utf8")).toContain('name="shop-python"');
  await run(PYTHON, ["-m", "py_compile", join(made.python, "__main__.py")]);
  expect(readFileSync(join(made.go, "go.mod"), "utf8")).toMatch(/^module shop-go\n/);
  expect((await run("gofmt", ["-l", made.go])).stdout).toBe("");
});

test("README: the install block runs as written: pulumi new of the YAML template with --yes and --config, the key set as a secret, up and destroy", async () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const marker = "<!-- test/packaging/templates.test.ts runs this block, from the folder that holds the checkout -->";
  expect(readme).toContain(marker);
  const block = shBlocks(readme.slice(readme.indexOf(marker)))[0];
  // The reader's folder: the checkout in it as pulumi-cloudplatform; the emulator's address and key exported.
  const reader = join(dir, "reader");
  mkdirSync(reader);
  symlinkSync(ROOT, join(reader, "pulumi-cloudplatform"));
  // Stop after `pulumi up` to look at the stack, then run the rest.
  const [upTo, rest] = block.split(/(?<=pulumi up --yes[^\n]*\n)/);
  const shell = (script: string, cwd: string) =>
    run("bash", ["-c", `set -euo pipefail\n${script}`], { cwd, env: { ...cliEnv(), CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey }, timeout: 240_000 });
  const up = await shell(upTo, reader);
  expect(up.stdout).toMatch(/\+ 3 created/); // the stack, the project and its environment
  const program = join(reader, "shop");
  const config = readFileSync(join(program, "Pulumi.dev.yaml"), "utf8");
  expect(config).toContain(`cloudplatform:baseUrl: ${emu.baseUrl}`);
  expect(config).toMatch(/cloudplatform:apiKey:\n\s+secure: /);
  expect(config).not.toContain(emu.apiKey);
  const outputs = JSON.parse((await run(join(TOOLS_BIN, "pulumi"), ["stack", "output", "--json"], { cwd: program, env: cliEnv() })).stdout);
  expect(outputs.tier).toBe("PROD");
  expect((await emu.client().get<{ name: string }>(`/v1/projects/${outputs.projectId}`)).name).toBe("shop");
  await shell(rest, program);
  expect(await emu.leftovers()).toEqual({});
});

test("asked interactively, pulumi new prompts for the address and the key, and stores the key encrypted", async () => {
  const program = join(dir, "asked-yaml");
  const key = "svc_live_typedAtThePrompt0123456789";
  // `script` gives the CLI a terminal; each prompt is answered when it shows.
  const command = `'${join(TOOLS_BIN, "pulumi")}' new '${join(TEMPLATES, "yaml")}' --name asked-yaml --description d --stack dev --dir '${program}'`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: dir, env: { ...cliEnv(), TERM: "xterm" } });
  const answers: [string, string][] = [["(cloudplatform:baseUrl)", emu.baseUrl], ["(cloudplatform:apiKey)", key]];
  const plain = (text: string) => text.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, "");
  let screen = "";
  child.stdout!.on("data", (d) => {
    screen += d;
    for (const answer of answers) {
      if (plain(screen).includes(answer[0]) && !answer[0].startsWith("answered")) {
        child.stdin!.write(`${answer[1]}\r`);
        answer[0] = `answered ${answer[0]}`;
      }
    }
  });
  const stuck = setTimeout(() => child.kill(), 120_000);
  const code = await new Promise((resolve) => child.on("exit", resolve));
  clearTimeout(stuck);
  const shown = answers.every(([a]) => a.startsWith("answered")) ? "" : plain(screen).slice(-2000);
  expect({ code, asked: answers.map(([a]) => a), shown }).toEqual({ code: 0, asked: ["answered (cloudplatform:baseUrl)", "answered (cloudplatform:apiKey)"], shown: "" });
  expect(screen).not.toContain(key); // typed without echo
  const config = readFileSync(join(program, "Pulumi.dev.yaml"), "utf8");
  expect(config).toContain(`cloudplatform:baseUrl: ${emu.baseUrl}`);
  expect(config).toMatch(/cloudplatform:apiKey:\n\s+secure: /);
  expect(config).not.toContain(key);
  expect(existsSync(join(program, "sdks", "cloudplatform.yaml"))).toBe(true);
  await pulumi(["stack", "rm", "--yes", "dev"], program);
});
