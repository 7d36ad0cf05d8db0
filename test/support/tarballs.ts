// What an npm tarball holds and what its code requires, for the packaging tests: every relative
// require resolves to a file inside the tarball, and every package it requires is declared.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";

export interface Tarball {
  manifest: { name: string; version: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string>; engines?: { node?: string }; bin?: Record<string, string> };
  /** Paths inside the package (without the tarball's `package/` prefix). */
  files: Set<string>;
  /** Each script's text (.js files and the bin entries), by path. */
  scripts: Map<string, string>;
}

export function readTarball(file: string): Tarball {
  const dir = mkdtempSync(join(tmpdir(), "cloudplatform-tarball-"));
  try {
    execFileSync("tar", ["xzf", file, "-C", dir]);
    const root = join(dir, "package");
    const files = new Set<string>();
    const walk = (rel: string) => {
      for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
        const path = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(path);
        else files.add(path);
      }
    };
    walk("");
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Tarball["manifest"];
    const bins = Object.values(manifest.bin ?? {}).map((b) => posix.normalize(b));
    const scripts = new Map<string, string>();
    for (const f of files) if (f.endsWith(".js") || bins.includes(f)) scripts.set(f, readFileSync(join(root, f), "utf8"));
    return { manifest, files, scripts };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The module specifiers a script requires (`require("…")`, `require.resolve("…")`, `import("…")`; not `config.require("…")`). */
function requires(source: string): string[] {
  return [...source.matchAll(/(?<![.\w$])(?:require|require\.resolve|import)\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
}

/** Relative requires that resolve to no file of the tarball, as `from -> specifier`. */
export function unresolvedRelative(t: Tarball): string[] {
  const missing: string[] = [];
  for (const [from, source] of t.scripts) {
    for (const spec of requires(source).filter((s) => s.startsWith("./") || s.startsWith("../"))) {
      const base = posix.normalize(posix.join(posix.dirname(from), spec));
      const found = [base, `${base}.js`, `${base}.json`, `${base}/index.js`].some((c) => t.files.has(c));
      if (!found) missing.push(`${from} -> ${spec}`);
    }
  }
  return missing;
}

/** Packages the code requires that the manifest does not declare (dependencies or peers), Node's own and the package itself left out. */
export function undeclaredPackages(t: Tarball): string[] {
  const declared = new Set([...Object.keys(t.manifest.dependencies ?? {}), ...Object.keys(t.manifest.peerDependencies ?? {}), t.manifest.name]);
  const builtin = new Set(builtinModules);
  const used = new Set<string>();
  for (const source of t.scripts.values()) {
    for (const spec of requires(source)) {
      if (spec.startsWith(".") || spec.startsWith("node:") || builtin.has(spec.split("/")[0])) continue;
      used.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
    }
  }
  return [...used].filter((p) => !declared.has(p)).sort();
}

/** The packages each manifest declares it depends on at run time, required by its code or not. */
export function requiredPackages(t: Tarball): Set<string> {
  const used = new Set<string>();
  for (const source of t.scripts.values()) for (const spec of requires(source)) if (!spec.startsWith(".")) used.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
  return used;
}
