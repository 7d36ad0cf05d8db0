// The plugin's release archives (scripts/make-plugin.sh), built once per content of what the
// package ships and shared by the test files that install them: a build costs half a minute of
// CPU, and two files in one run (or two runs with nothing rebuilt) need the same archives.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";
import { exclusive } from "./helpers";

const run = promisify(execFile);
const CACHE = join(ROOT, "node_modules", ".cache", "cloudplatform-plugin");

/** What `npm pack` takes (package.json's files), by path, size and modification time. */
function contentKey(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] };
  const hash = createHash("sha256").update(readFileSync(join(ROOT, "package.json")));
  const visit = (rel: string) => {
    const abs = join(ROOT, rel);
    if (!existsSync(abs)) return;
    const st = statSync(abs);
    if (st.isDirectory()) for (const e of readdirSync(abs).sort()) visit(join(rel, e));
    else hash.update(`${rel}\0${st.size}\0${st.mtimeMs}\n`);
  };
  for (const f of pkg.files.filter((f) => !f.startsWith("!"))) visit(f.replace(/\/$/, ""));
  visit("scripts/make-plugin.sh");
  visit("dist/scripts/pack.js");
  return hash.digest("hex").slice(0, 16);
}

/** Waits for another worker's build of the same key, or makes it. */
async function archivesDir(): Promise<string> {
  const key = contentKey();
  const dir = join(CACHE, key);
  const complete = join(dir, ".complete");
  mkdirSync(CACHE, { recursive: true });
  if (existsSync(complete)) return dir;
  // A lock older than a build could take is a dead worker's.
  return exclusive(`${dir}.lock`, async () => {
    if (existsSync(complete)) return dir;
    const tmp = `${dir}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    await run(join(ROOT, "scripts", "make-plugin.sh"), [], { env: { ...process.env, PLUGIN_OUT: tmp }, timeout: 600_000 });
    writeFileSync(join(tmp, ".complete"), "");
    for (const old of readdirSync(CACHE)) if (!old.endsWith(".lock") && !old.startsWith(key)) rmSync(join(CACHE, old), { recursive: true, force: true });
    renameSync(tmp, dir);
    return dir;
  }, { staleMs: 600_000 });
}

/** Copies the archives `make plugin` builds for the checkout's current content into `out`. */
export async function pluginArchives(out: string): Promise<void> {
  const dir = await archivesDir();
  mkdirSync(out, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith(".tar.gz")) cpSync(join(dir, f), join(out, f), { preserveTimestamps: true });
}
