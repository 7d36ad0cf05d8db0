// The documented recovery after a killed `pulumi` process, as docs/resource-behaviour.md gives it.
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { StackHandle } from "../../scripts/pulumi-env";

/** Ids of the `pulumi <command>` processes whose command line names this stack, then their children. */
export function processesOf(stackName: string, command = "up"): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,args="]).toString().trim().split("\n").map((l) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l)!;
    return { pid: Number(m[1]), ppid: Number(m[2]), args: m[3] };
  });
  const roots = rows.filter((r) => r.args.includes("pulumi") && r.args.includes(` ${command} `) && r.args.includes(stackName)).map((r) => r.pid);
  const all = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows) if (all.has(r.ppid) && !all.has(r.pid)) (all.add(r.pid), (grew = true));
  }
  return [...all];
}

/** SIGKILL to each process, the CLI first; returns how many were still there. */
export function killAll(pids: number[]): number {
  let killed = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
      killed++;
    } catch {
      // already gone
    }
  }
  return killed;
}

/**
 * The file backend writes each object's metadata sidecar (`<file>.attrs`) by truncating it and then
 * writing it, before it renames the object's new content into place: a kill in between leaves an
 * empty sidecar beside an intact object, and every later command fails with "failed to load
 * checkpoint: EOF". Deleting empty sidecars is safe (a missing one means default metadata).
 * Returns the paths removed, relative to the backend.
 */
export function removeEmptySidecars(backendDir: string): string[] {
  const removed: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".attrs") && statSync(p).size === 0) (rmSync(p), removed.push(p.slice(backendDir.length + 1)));
    }
  };
  walk(join(backendDir, ".pulumi"));
  return removed;
}

/**
 * After a crash: unlock the stack if the dead update still holds it (`pulumi cancel`), clear empty
 * sidecars the kill may have left, `pulumi refresh --clear-pending-creates`, then `up`.
 */
export async function recover(s: StackHandle): Promise<{ removed: string[] }> {
  const removed = removeEmptySidecars(s.backendDir);
  // (on the file backend, cancel just removes the lock files: harmless when there are none)
  await s.stack.cancel();
  await s.stack.refresh({ clearPendingCreates: true });
  await s.stack.up();
  return { removed };
}
