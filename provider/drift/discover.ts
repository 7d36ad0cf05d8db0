// Which stacks to check: named ones, every stack of the project folders given, every stack each
// backend lists. A backend or folder that cannot be listed becomes a failed entry of the report,
// and the rest are still found.
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { classify } from "./failures";
import type { StackReport } from "./types";
import { openWorkspace, publicBackend, type Runner, type Target } from "./workspace";

export interface Sources {
  /** `org/project/stack`, `project/stack`, or a bare stack name of the one --dir. */
  stacks: string[];
  dirs: string[];
  all: boolean;
  /** Backends to list (--all) or to find --stack on; none means the CLI's current login. */
  backends: string[];
}

/** `org/project/stack` -> its parts; a bare name takes the project given. */
export function parseStackName(name: string, project?: string): { org?: string; project: string; stack: string } {
  const parts = name.split("/");
  if (parts.length === 3 && parts.every(Boolean)) return { org: parts[0], project: parts[1], stack: parts[2] };
  if (parts.length === 2 && parts.every(Boolean)) return { project: parts[0], stack: parts[1] };
  if (parts.length === 1 && parts[0] && project) return { project, stack: parts[0] };
  throw new Error(`--stack ${name}: expected org/project/stack or project/stack (a bare stack name needs exactly one --dir)`);
}

/** The stack's key for sharding and de-duplication: `project/stack`, with its organization when not the file backend's default. */
export function stackKey(t: Pick<Target, "name" | "project" | "stack">): string {
  const org = t.name.split("/").length === 3 ? t.name.split("/")[0] : undefined;
  return org && org !== "organization" ? `${org}/${t.project}/${t.stack}` : `${t.project}/${t.stack}`;
}

/** Shard `index` (1-based) of `count`: a stable partition by a hash of each stack's key. */
export function inShard(t: Target, shard: { index: number; count: number }): boolean {
  const h = createHash("sha256").update(stackKey(t)).digest().readUInt32BE(0);
  return h % shard.count === shard.index - 1;
}

export function failedEntry(name: string, backend: string | undefined, err: unknown, project = "", stack = ""): StackReport {
  return {
    name, project, stack, backend: publicBackend(backend), status: "failed", error: classify(err),
    resourcesChecked: 0, findings: [], durationMs: 0,
  };
}

export async function discover(runner: Runner, src: Sources): Promise<{ targets: Target[]; failures: StackReport[] }> {
  const targets: Target[] = [];
  const failures: StackReport[] = [];
  const backend = src.backends.length === 1 ? src.backends[0] : undefined;
  if (src.stacks.length && src.backends.length > 1) throw new Error("--stack takes at most one --backend: name the stacks of other backends with --all or --dir");

  for (const raw of src.dirs) {
    const dir = resolve(raw);
    let project = "";
    try {
      const { ws, dispose } = await openWorkspace(runner, { dir, backend, project: "" });
      try {
        const settings = await ws.projectSettings();
        project = settings.name;
        const dirBackend = settings.backend?.url ?? backend;
        const names = src.stacks.length ? [] : (await ws.listStacks()).map((s) => s.name);
        for (const n of names) {
          const p = parseStackName(n, project);
          targets.push({ name: p.org ? n : p.stack, project, stack: p.stack, backend: dirBackend, dir });
        }
        if (src.stacks.length && src.dirs.length === 1) {
          for (const n of src.stacks) {
            const p = parseStackName(n, project);
            targets.push({ name: n, project: p.project, stack: p.stack, backend: dirBackend, dir });
          }
        }
      } finally {
        dispose();
      }
    } catch (err) {
      failures.push(failedEntry(project ? `${project} (${dir})` : dir, backend, err, project));
    }
  }
  if (src.stacks.length && src.dirs.length !== 1) {
    if (src.dirs.length > 1) throw new Error("--stack with --dir: give exactly one --dir (the stacks' project folder)");
    for (const n of src.stacks) {
      const p = parseStackName(n);
      targets.push({ name: n, project: p.project, stack: p.stack, backend });
    }
  }
  if (src.all) {
    for (const b of src.backends.length ? src.backends : [undefined]) {
      try {
        const { ws, dispose } = await openWorkspace(runner, { backend: b, project: "" });
        try {
          for (const s of await ws.listStacks({ all: true })) {
            const p = parseStackName(s.name);
            targets.push({ name: s.name, project: p.project, stack: p.stack, backend: b });
          }
        } finally {
          dispose();
        }
      } catch (err) {
        failures.push(failedEntry(publicBackend(b) ?? "the current backend", b, err));
      }
    }
  }
  const seen = new Set<string>();
  const unique = targets.filter((t) => {
    const k = `${t.backend ?? ""}|${stackKey(t)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { targets: unique, failures };
}
