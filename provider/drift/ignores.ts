// Each resource's `ignoreChanges`, kept in the stack's state. On a file backend the checkpoint is
// read straight from its folder (`.pulumi/stacks/<project>/<stack>.json[.gz]`, or the older
// `.pulumi/stacks/<stack>.json[.gz]`): no second CLI process per drifted stack. Any other backend,
// or a checkpoint not found there, is read with `pulumi stack export` (secrets left encrypted).
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

interface StateResource {
  urn: string;
  ignoreChanges?: string[];
}

/** The folder of a `file://` backend URL (`file://~` is the home folder), else undefined. */
export function fileBackendDir(url: string | undefined): string | undefined {
  if (!url?.startsWith("file://")) return undefined;
  const path = decodeURIComponent(url.slice("file://".length).replace(/\?.*$/, ""));
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}

/** The resources of the stack's checkpoint on a file backend, or undefined when it is not there. */
export function checkpointResources(backendDir: string, project: string, stack: string): StateResource[] | undefined {
  const base = join(backendDir, ".pulumi", "stacks");
  for (const file of [join(base, project, `${stack}.json`), join(base, `${stack}.json`)]) {
    for (const [name, read] of [[file, (b: Buffer) => b], [`${file}.gz`, gunzipSync]] as const) {
      let raw: Buffer;
      try {
        raw = readFileSync(name);
      } catch {
        continue;
      }
      const cp = JSON.parse(read(raw).toString("utf8")) as { checkpoint?: { latest?: { resources?: StateResource[] } } };
      return cp.checkpoint?.latest?.resources ?? [];
    }
  }
  return undefined;
}

/** The bytes of a stack's checkpoint on a file backend (a gzipped one counted five times), 0 when unknown. */
export function checkpointSize(backendDir: string | undefined, project: string, stack: string): number {
  if (!backendDir) return 0;
  const base = join(backendDir, ".pulumi", "stacks", project, `${stack}.json`);
  for (const [file, factor] of [[base, 1], [`${base}.gz`, 5]] as const) {
    try {
      return statSync(file).size * factor;
    } catch {
      // not this one
    }
  }
  return 0;
}

/** URN -> ignoreChanges, for the resources that have some. */
export async function ignoreChangesOf(exportStack: () => Promise<string>, where: { backend?: string; project: string; stack: string }): Promise<Map<string, string[]>> {
  const dir = fileBackendDir(where.backend);
  let resources = dir && where.project ? checkpointResources(dir, where.project, where.stack) : undefined;
  if (!resources) resources = ((JSON.parse(await exportStack()) as { deployment?: { resources?: StateResource[] } }).deployment?.resources ?? []);
  return new Map(resources.filter((r) => r.ignoreChanges?.length).map((r) => [r.urn, r.ignoreChanges!]));
}
