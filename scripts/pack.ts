// The npm packages this repository publishes, from one tsc output (dist/): `pulumi-cloudplatform`,
// the provider (the root package.json's files), and `@pulumi-cloudplatform/emulator`, the emulator
// and the app testing kit (packages/emulator/package.json's files, taken from the same dist/).
// `make pack` writes both tarballs into the repository root; the release (scripts/release.sh) into
// its own folder with another version stamped into each manifest.
//
//   node dist/scripts/pack.js [--out DIR] [--version X.Y.Z]
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ROOT } from "./pulumi-env";

export interface Packed {
  /** The tarballs' paths, by package name. */
  provider: string;
  emulator: string;
}

const npm = (args: string[], cwd: string): string =>
  execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_fund: "false", npm_config_audit: "false" } }).toString();

const manifest = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> & { version: string };

/** `npm pack` of a staged folder into `out`; the tarball's path. */
function packStage(stage: string, out: string): string {
  const [{ filename }] = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", out], stage)) as { filename: string }[];
  return join(out, filename);
}

/** The version to stamp: package.json's unless given, checked. */
function versionOf(version?: string): string {
  const v = version ?? manifest(join(ROOT, "package.json")).version;
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(v)) throw new Error(`pack: ${v} is not a version (x.y.z)`);
  return v;
}

/** Packs what `fill` stages in a fresh folder into `out`; the tarball's path. */
function staged(out: string, fill: (stage: string) => void): string {
  mkdirSync(out, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), "cloudplatform-pack-"));
  try {
    fill(stage);
    return packStage(stage, out);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * The provider: the files npm itself picks for this folder, with a manifest for users (no
 * workspaces, scripts or devDependencies: they describe this repository, not the package).
 */
export function packProvider(out: string, version?: string): string {
  const v = versionOf(version);
  return staged(out, (stage) => {
    const [{ files }] = JSON.parse(npm(["pack", "--dry-run", "--json", "--ignore-scripts"], ROOT)) as { files: { path: string }[] }[];
    for (const { path } of files) {
      mkdirSync(dirname(join(stage, path)), { recursive: true });
      cpSync(join(ROOT, path), join(stage, path), { preserveTimestamps: true });
    }
    const { workspaces: _w, scripts: _s, devDependencies: _d, ...users } = manifest(join(ROOT, "package.json"));
    writeFileSync(join(stage, "package.json"), `${JSON.stringify({ ...users, version: v }, null, 2)}\n`);
    // The plugin serves the schema it ships: at the same version.
    const schema = join(stage, "schema.json");
    writeFileSync(schema, readFileSync(schema, "utf8").replace(/^ {2}"version": "[^"]*"/m, `  "version": "${v}"`));
  });
}

/**
 * The emulator: its manifest and README (packages/emulator) and the license, over a copy of
 * dist/emulator and dist/testing; its `files` keep the kit and leave the provider's mocks out.
 */
export function packEmulator(out: string, version?: string): string {
  const v = versionOf(version);
  const dir = join(ROOT, "packages", "emulator");
  return staged(out, (stage) => {
    for (const d of ["emulator", "testing"]) cpSync(join(ROOT, "dist", d), join(stage, "dist", d), { recursive: true, preserveTimestamps: true });
    cpSync(join(dir, "README.md"), join(stage, "README.md"));
    cpSync(join(ROOT, "LICENSE"), join(stage, "LICENSE"));
    writeFileSync(join(stage, "package.json"), `${JSON.stringify({ ...manifest(join(dir, "package.json")), version: v }, null, 2)}\n`);
  });
}

/** Writes both tarballs into `out`, each manifest at `version` (package.json's by default). */
export function packAll(out: string, version?: string): Packed {
  return { provider: packProvider(out, version), emulator: packEmulator(out, version) };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const packed = packAll(resolve(flag("--out") ?? ROOT), flag("--version"));
  process.stdout.write(`${packed.provider}\n${packed.emulator}\n`);
}
