// The packed package (npm pack) installed into a fresh TypeScript Pulumi project laid out as
// `pulumi new typescript` lays it out: every documented entry point type-checks with TypeScript 4.9
// and 5.x under moduleResolution node and node16 and loads at run time, and up and destroy work.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, testStack } from "../support/stack";
import { serializedProvider, stateOverhead, stateResources } from "../support/tracking";

jest.setTimeout(600_000);

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator();
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-pack-"));
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The entry points the README documents. */
const ENTRY_POINTS = [
  "pulumi-cloudplatform", "pulumi-cloudplatform/native", "pulumi-cloudplatform/provider", "pulumi-cloudplatform/provider/client", "pulumi-cloudplatform/emulator",
  "pulumi-cloudplatform/testing", "pulumi-cloudplatform/testing/mocks", "pulumi-cloudplatform/policy",
];

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", args, { cwd, stdio: "pipe", env: { ...process.env, npm_config_fund: "false", npm_config_audit: "false" } }).toString();

test("npm pack -> fresh `pulumi new typescript` project -> every entry point with tsc 4.9 and 5.x -> up -> destroy", async () => {
  npm(["pack", "--pack-destination", dir, "--silent"], ROOT);
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  expect(tarball).toBeDefined();

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
  npm(["install", "--prefer-offline", "--no-audit", "--no-fund", join(dir, tarball!), "@pulumi/pulumi@3.248.0", "@pulumi/policy@^1.21.0", "typescript@4.9.5", "@types/node@20"], app);

  // The package's commands are installed: cloudplatform-adopt runs from node_modules/.bin.
  expect(execFileSync(join(app, "node_modules", ".bin", "cloudplatform-adopt"), ["--help"], { cwd: app }).toString()).toMatch(/^usage: cloudplatform-adopt /);

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
