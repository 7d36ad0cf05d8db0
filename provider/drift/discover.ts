// Which stacks to check: named ones, every stack of the project folders given, every stack each
// backend lists. Every stack is named `org/project/stack`, so stacks of two projects never share a
// name. A backend or folder that cannot be listed becomes a failed entry of the report, and the rest
// are still found. A file backend is listed from its folder (no CLI process); others by the CLI.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { classify } from "./failures";
import { fileBackendDir } from "./ignores";
import type { StackReport } from "./types";
import { effectiveBackend, isDiyBackend, openWorkspace, publicBackend, runPulumi, type Runner, type Target } from "./workspace";

export interface Sources {
  /** `org/project/stack`, `project/stack`, or a bare stack name of the one --dir. */
  stacks: string[];
  dirs: string[];
  all: boolean;
  /** Backends to list (--all) or to find --stack on; none means the CLI's current login. */
  backends: string[];
}

/** The organization of every stack on a file, S3, GCS, Azure or Postgres backend. */
export const DIY_ORG = "organization";

/** `org/project/stack` -> its parts; a bare name takes the project given. */
export function parseStackName(name: string, project?: string): { org?: string; project: string; stack: string } {
  const parts = name.split("/");
  if (parts.length === 3 && parts.every(Boolean)) return { org: parts[0], project: parts[1], stack: parts[2] };
  if (parts.length === 2 && parts.every(Boolean)) return { project: parts[0], stack: parts[1] };
  if (parts.length === 1 && parts[0] && project) return { project, stack: parts[0] };
  throw new Error(`--stack ${name}: expected org/project/stack or project/stack (a bare stack name needs exactly one --dir)`);
}

/** The stack's key for sharding and de-duplication: `project/stack`, with its organization when not the DIY backends' one. */
export function stackKey(t: Pick<Target, "name" | "project" | "stack">): string {
  const org = t.name.split("/").length === 3 ? t.name.split("/")[0] : undefined;
  return org && org !== DIY_ORG ? `${org}/${t.project}/${t.stack}` : `${t.project}/${t.stack}`;
}

/** Shard `index` (1-based) of `count`: a stable partition by a hash of each stack's key. */
export function inShard(t: Pick<Target, "name" | "project" | "stack">, shard: { index: number; count: number }): boolean {
  const h = createHash("sha256").update(stackKey(t)).digest().readUInt32BE(0);
  return h % shard.count === shard.index - 1;
}

export function failedEntry(name: string, backend: string | undefined, err: unknown, project = "", stack = ""): StackReport {
  return {
    name, project, stack, backend: publicBackend(backend), status: "failed", error: classify(err),
    resourcesChecked: 0, findings: [], durationMs: 0,
  };
}

/** `pulumi stack ls --json -Q` (fully qualified names) in `cwd`, with `extra` flags. */
async function listWithCli(runner: Runner, backend: string | undefined, project: string, extra: string[], cwd?: string): Promise<string[]> {
  const ws = openWorkspace(runner, { backend, project, dir: cwd });
  try {
    const { stdout } = await runPulumi(runner, ["stack", "ls", "--json", "-Q", ...extra], { cwd: ws.dir, env: ws.env });
    return (JSON.parse(stdout) as { name: string }[]).map((s) => s.name);
  } finally {
    ws.dispose();
  }
}

/**
 * The stacks of a file backend in the project layout (`.pulumi/meta.yaml` version 1), read from its
 * folder: `.pulumi/stacks/<project>/<stack>.json[.gz]`. Undefined when the backend is not a file
 * backend in that layout; the CLI lists it then.
 */
export function fileBackendStacks(url: string | undefined, project?: string): string[] | undefined {
  const dir = fileBackendDir(url);
  if (!dir) return undefined;
  try {
    if (!/^version:\s*1\s*$/m.test(readFileSync(join(dir, ".pulumi", "meta.yaml"), "utf8"))) return undefined;
  } catch {
    return undefined;
  }
  const root = join(dir, ".pulumi", "stacks");
  if (!existsSync(root)) return [];
  const names = new Set<string>();
  for (const p of project !== undefined ? [project] : readdirSync(root)) {
    let files: string[];
    try {
      files = readdirSync(join(root, p));
    } catch {
      continue;
    }
    for (const f of files) {
      const m = /^(.+)\.json(\.gz)?$/.exec(f);
      if (m) names.add(`${DIY_ORG}/${p}/${m[1]}`);
    }
  }
  return [...names].sort();
}

/** Every stack of a backend (or of one project on it), fully qualified. */
async function listStacks(runner: Runner, backend: string | undefined, project?: string, dir?: string): Promise<string[]> {
  return fileBackendStacks(effectiveBackend(runner, backend), project)
    ?? listWithCli(runner, backend, project ?? "", dir ? [] : ["--all", ...(project ? ["--project", project] : [])], dir);
}

/**
 * `org/project/stack` for a name given as `project/stack` (or a bare one with its project): on a DIY
 * backend the organization is always `organization`; elsewhere the backend's listing says which
 * organization holds that project's stack, and two that do are an error asking for the full name.
 */
export async function qualify(runner: Runner, raw: string, where: { backend?: string; project?: string; dir?: string }): Promise<{ org: string; project: string; stack: string }> {
  const p = parseStackName(raw, where.project);
  if (p.org) return { org: p.org, project: p.project, stack: p.stack };
  if (isDiyBackend(effectiveBackend(runner, where.backend))) return { org: DIY_ORG, project: p.project, stack: p.stack };
  const hits = (await listStacks(runner, where.backend, p.project, where.dir)).filter((n) => n.endsWith(`/${p.project}/${p.stack}`));
  if (hits.length === 1) return parseStackName(hits[0]) as { org: string; project: string; stack: string };
  if (!hits.length) throw new Error(`--stack ${raw}: no stack ${p.project}/${p.stack} on ${publicBackend(effectiveBackend(runner, where.backend)) ?? "the current backend"}`);
  throw new Error(`--stack ${raw}: ${hits.join(" and ")} both match; name one as org/project/stack`);
}

/** The project name and backend URL a project folder's Pulumi.yaml (or .yml, .json) gives. */
export function projectSettings(dir: string): { name: string; backend?: string } {
  for (const f of ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"]) {
    const file = join(dir, f);
    if (!existsSync(file)) continue;
    const text = readFileSync(file, "utf8");
    // js-yaml comes with @pulumi/pulumi, whose Automation API reads project files with it.
    const doc = (f.endsWith(".json") ? JSON.parse(text) : yaml().load(text)) as { name?: unknown; backend?: { url?: unknown } } | null;
    if (typeof doc?.name !== "string" || !doc.name) throw new Error(`${file}: no project name`);
    return { name: doc.name, ...(typeof doc.backend?.url === "string" ? { backend: doc.backend.url } : {}) };
  }
  throw new Error(`${dir}: no Pulumi.yaml (not a Pulumi project folder)`);
}

const yaml = () => createRequire(require.resolve("@pulumi/pulumi/package.json"))("js-yaml") as { load(s: string): unknown };

const targetOf = (q: { org: string; project: string; stack: string }, backend: string | undefined, dir?: string): Target => ({
  name: `${q.org}/${q.project}/${q.stack}`, project: q.project, stack: q.stack, backend, ...(dir ? { dir } : {}),
});

export async function discover(runner: Runner, src: Sources): Promise<{ targets: Target[]; failures: StackReport[] }> {
  const targets: Target[] = [];
  const failures: StackReport[] = [];
  const backend = src.backends.length === 1 ? src.backends[0] : undefined;
  if (src.stacks.length && src.backends.length > 1) throw new Error("--stack takes at most one --backend: name the stacks of other backends with --all or --dir");
  if (src.stacks.length && src.dirs.length > 1) throw new Error("--stack with --dir: give exactly one --dir (the stacks' project folder)");

  for (const raw of src.dirs) {
    const dir = resolve(raw);
    let project = "";
    try {
      const settings = projectSettings(dir);
      project = settings.name;
      const dirBackend = settings.backend ?? backend;
      if (src.stacks.length) {
        for (const n of src.stacks) targets.push(targetOf(await qualify(runner, n, { backend: dirBackend, project, dir }), dirBackend, dir));
      } else {
        for (const n of await listStacks(runner, dirBackend, project, dir)) targets.push(targetOf(parseStackName(n) as { org: string; project: string; stack: string }, dirBackend, dir));
      }
    } catch (err) {
      failures.push(failedEntry(project ? `${project} (${dir})` : dir, backend, err, project));
    }
  }
  if (src.stacks.length && !src.dirs.length) {
    for (const n of src.stacks) {
      try {
        targets.push(targetOf(await qualify(runner, n, { backend }), backend));
      } catch (err) {
        // A name the backend does not hold is that stack's failure; a malformed one is bad usage.
        if (/expected org\/project\/stack/.test((err as Error).message)) throw err;
        const p = parseStackName(n);
        failures.push(failedEntry(n, backend, err, p.project, p.stack));
      }
    }
  }
  if (src.all) {
    for (const b of src.backends.length ? src.backends : [undefined]) {
      try {
        for (const n of await listStacks(runner, b)) targets.push(targetOf(parseStackName(n) as { org: string; project: string; stack: string }, b));
      } catch (err) {
        failures.push(failedEntry(publicBackend(b) ?? "the current backend", b, err));
      }
    }
  }
  const seen = new Set<string>();
  const unique = targets.filter((t) => {
    const k = `${t.backend ?? ""}|${t.name}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { targets: unique, failures };
}
