// One run: find the stacks, keep this shard's, check them N at a time, then plan, remediate and
// notify as asked. A stack's failure is its own entry; only bad usage stops the run.
import { checkStack } from "./check";
import { discover, inShard, type Sources } from "./discover";
import { notify, type NotifyOptions } from "./notify";
import { mapLimit } from "./pool";
import { planStack, remediateStack } from "./remediate";
import { buildReport } from "./report";
import type { Report } from "./types";
import { makeRunner, type Runner } from "./workspace";

export interface RunOptions {
  sources: Sources;
  shard?: { index: number; count: number };
  parallel: number;
  plan?: boolean;
  remediate?: boolean;
  allowReplace?: boolean;
  notify?: NotifyOptions;
  /** Environment added to every CLI command. */
  env?: Record<string, string>;
}

export async function run(opts: RunOptions, runner?: Runner): Promise<Report> {
  const r = runner ?? (await makeRunner(opts.env));
  const found = await discover(r, opts.sources);
  const shard = opts.shard;
  const targets = shard ? found.targets.filter((t) => inShard(t, shard)) : found.targets;
  // A listing failure belongs to the first shard only, so the merged report counts it once.
  const failures = !shard || shard.index === 1 ? found.failures : [];
  const stacks = await mapLimit(targets, opts.parallel, async (t) => {
    const s = await checkStack(r, t);
    if (opts.plan) s.plan = await planStack(r, t);
    return s;
  });
  if (opts.remediate) {
    // One at a time: each runs the stack's program and writes its state.
    // A --plan already made is the remediation's plan: the program is not run twice for it.
    for (const [i, s] of stacks.entries()) if (s.status === "drifted") s.remediation = await remediateStack(r, targets[i], !!opts.allowReplace, s.plan);
  }
  const report = buildReport([...failures, ...stacks], shard ? { shard: `${shard.index}/${shard.count}` } : {});
  if (opts.notify) report.notification = await notify(report, opts.notify);
  return report;
}
