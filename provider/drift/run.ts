// One run: find the stacks, keep this shard's, check them N at a time, then plan, remediate, list
// what no stack manages, compare with the baseline and notify, as asked. A stack's failure is its
// own entry; only bad usage stops the run. `merge` ends the same way (`complete`).
import { assignIds, hasNew, markAgainst } from "./baseline";
import { checkStack } from "./check";
import { checkpointSize, fileBackendDir } from "./ignores";
import { discover, inShard, type Sources } from "./discover";
import { notify, type NotifyOptions } from "./notify";
import { mapLimit } from "./pool";
import { planStack, remediateStack } from "./remediate";
import { buildReport, exitCode, resummarize } from "./report";
import type { Report, Unmanaged } from "./types";
import { inventory, platformContext, unmanagedOf, type Inventory } from "./unmanaged";
import { postWebhook, webhookOrigin } from "./webhook";
import { makeRunner, type Runner, type Target } from "./workspace";

/** When to notify: every run, only when something drifted or failed, or only when something is new. */
export type NotifyOn = "always" | "drift" | "new";

export interface CompleteOptions {
  /** List the objects no stack manages (the stacks must carry their managed keys). */
  unmanaged?: boolean;
  /** The previous report: each finding is marked new, persisting or resolved against it. */
  baseline?: Report;
  notify?: NotifyOptions;
  webhook?: string;
  notifyOn?: NotifyOn;
  /** Environment of the platform's API (CLOUDPLATFORM_*); default: this process's. */
  env?: Record<string, string>;
}

export interface RunOptions extends CompleteOptions {
  sources: Sources;
  shard?: { index: number; count: number };
  parallel: number;
  plan?: boolean;
  remediate?: boolean;
  allowReplace?: boolean;
}

/** The targets by the size of their checkpoint on a file backend, largest first; others keep their order. */
export function largestFirst(targets: Target[]): Target[] {
  const size = new Map(targets.map((t) => [t, checkpointSize(fileBackendDir(t.backend ?? process.env.PULUMI_BACKEND_URL), t.project, t.stack)]));
  return [...targets].sort((a, b) => size.get(b)! - size.get(a)!);
}

/** The workspace's listing, started at once so it overlaps the stacks' checks. */
function startInventory(env?: Record<string, string>): Promise<Inventory | Error> {
  return (async () => {
    const ctx = await platformContext({ ...process.env, ...env });
    try {
      return await inventory(ctx);
    } finally {
      await ctx.client.close().catch(() => {});
    }
  })().catch((err: Error) => err);
}

export async function run(opts: RunOptions, runner?: Runner): Promise<Report> {
  const r = runner ?? makeRunner(opts.env);
  const listing = opts.unmanaged && !opts.shard ? startInventory(opts.env) : undefined;
  const found = await discover(r, opts.sources);
  const shard = opts.shard;
  // Largest first (a file backend's checkpoint size says which): the last stack to start is a
  // small one, so N at a time finish together rather than one long check running alone at the end.
  const targets = largestFirst(shard ? found.targets.filter((t) => inShard(t, shard)) : found.targets);
  // A listing failure belongs to the first shard only, so the merged report counts it once.
  const failures = !shard || shard.index === 1 ? found.failures : [];
  const stacks = await mapLimit(targets, opts.parallel, async (t) => {
    const s = await checkStack(r, t, { managed: !!opts.unmanaged });
    if (opts.plan) s.plan = await planStack(r, t);
    return s;
  });
  if (opts.remediate) {
    // One at a time: each runs the stack's program and writes its state.
    // A --plan already made is the remediation's plan: the program is not run twice for it.
    for (const [i, s] of stacks.entries()) if (s.status === "drifted") s.remediation = await remediateStack(r, targets[i], !!opts.allowReplace, s.plan);
  }
  const report = buildReport([...failures, ...stacks], shard ? { shard: `${shard.index}/${shard.count}` } : {});
  // A shard only records what its stacks manage; `merge --unmanaged` lists the workspace.
  return complete(report, { ...opts, unmanaged: !!listing }, listing);
}

/** What no stack of `r` manages, from the workspace's listing. */
export async function listUnmanaged(r: Report, listing: Promise<Inventory | Error>): Promise<Unmanaged> {
  const missing = r.stacks.filter((s) => s.status !== "failed" && !s.managed);
  if (missing.length) {
    throw new Error(`--unmanaged: ${missing.map((s) => s.name).join(", ")} carry no list of what they manage: check the stacks (or each shard) with --unmanaged`);
  }
  const managed = new Set(r.stacks.flatMap((s) => s.managed ?? []));
  const incomplete = r.stacks.filter((s) => s.status === "failed").map((s) => s.name);
  const inv = await listing;
  if (inv instanceof Error) {
    return { workspaceId: "", coverage: { managed: 0, total: 0, percent: 0 }, objects: [], error: `the workspace could not be listed: ${inv.message}` };
  }
  return { ...unmanagedOf(inv, managed), ...(incomplete.length ? { incomplete } : {}) };
}

/** The end of a run or a merge: unmanaged objects, the baseline, then the notifications. */
export async function complete(report: Report, opts: CompleteOptions, listing?: Promise<Inventory | Error>): Promise<Report> {
  if (opts.unmanaged) {
    report.unmanaged = await listUnmanaged(report, listing ?? startInventory(opts.env));
    resummarize(report);
  }
  assignIds(report);
  if (opts.baseline) markAgainst(report, opts.baseline);
  const wanted = !opts.notifyOn || opts.notifyOn === "always" || (opts.notifyOn === "drift" ? exitCode(report) !== 0 : hasNew(report, opts.baseline));
  const why = opts.notifyOn === "new" ? "nothing new since the baseline" : "no drift and no failure";
  if (opts.notify) report.notification = wanted ? await notify(report, opts.notify, { ...process.env, ...opts.env }) : { to: opts.notify.to, status: "skipped", message: why };
  if (opts.webhook) report.webhook = wanted ? await postWebhook(opts.webhook, report) : { url: webhookOrigin(opts.webhook), status: "skipped", attempts: 0, message: why };
  return report;
}
