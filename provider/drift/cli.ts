#!/usr/bin/env node
// cloudplatform-drift: checks many Pulumi stacks for drift in one run, without running their
// programs, and reports per property. See docs/drift.md.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { complete, run, type CompleteOptions, type NotifyOn, type RunOptions } from "./run";
import { exitCode, mergeReports, parseReport } from "./report";
import { renderConsole, renderJunit, renderMarkdown, summaryLine } from "./render";
import { EXIT, type Report } from "./types";

export const HELP = `usage: cloudplatform-drift [--stack NAME]... [--dir DIR]... [--all [--backend URL]...] [options]
       cloudplatform-drift merge REPORT.json... [--unmanaged] [--baseline FILE] [output and notify flags]

Checks each stack with a refresh that writes nothing and does not run the program (pulumi refresh
--preview-only --run-program=false), so stacks in any language are checked with Node.js and the
Pulumi CLI alone, and reports per property what changed outside Pulumi.

stacks (each reported as org/project/stack):
  --stack NAME        org/project/stack or project/stack (repeatable); a bare name with one --dir
  --dir DIR           every stack of the project in DIR (repeatable)
  --all               every stack the backend lists
  --backend URL       the backend (repeatable with --all); default: PULUMI_BACKEND_URL or the CLI's login
  --shard I/N         check only shard I (1..N) of the stacks: a stable partition by stack name

output:
  --format F          console (default), json, markdown or junit
  --out FILE          write the format to FILE (the summary line goes to stderr); default stdout
  --json FILE, --markdown FILE, --junit FILE   also write that format to FILE

work:
  --parallel N        stacks checked at once (default: the number of cores)
  --plan              also what \`up\` would change (pulumi preview --refresh), for --dir stacks
  --remediate         pulumi up --refresh on drifted --dir stacks, one at a time per stack; refused
                      when the plan would replace or delete anything
  --allow-replace     let --remediate replace and delete
  --unmanaged         also list the workspace's objects no checked stack manages, with the coverage
                      (platform key from CLOUDPLATFORM_API_KEY); with --shard, each shard records what
                      its stacks manage and \`merge --unmanaged\` lists them
  --baseline FILE     the previous JSON report: each finding is marked new, persisting or resolved

notify:
  --notify-email ADDR  mail the report (repeatable); key from CLOUDPLATFORM_MAIL_KEY, sender from
                      --notify-from or CLOUDPLATFORM_DRIFT_FROM (a verified sending domain)
  --notify-webhook URL  POST the JSON report, with a short \`text\`, to URL (retried on 5xx); an
                      empty URL posts nothing
  --notify-on WHEN    always (default), drift (drift, unmanaged objects or a failure) or new
                      (something new since --baseline, or a stack newly failing)

exit codes: 0 no drift, 7 drift (or unmanaged objects) found, 1 a stack could not be checked or a
shard's report is missing (wins over 7); bad usage exits 1 too.
Secret values are never printed: a changed secret shows as [secret] -> [secret].
`;

type Format = "console" | "json" | "markdown" | "junit";
const FORMATS: Format[] = ["console", "json", "markdown", "junit"];

export function render(r: Report, format: Format): string {
  if (format === "json") return `${JSON.stringify(r, null, 2)}\n`;
  if (format === "markdown") return renderMarkdown(r);
  if (format === "junit") return renderJunit(r);
  return renderConsole(r);
}

class UsageError extends Error {}

function parseShard(s: string | undefined): { index: number; count: number } | undefined {
  if (s === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(s);
  if (!m || +m[2] < 1 || +m[1] < 1 || +m[1] > +m[2]) throw new UsageError(`--shard ${s}: expected I/N with 1 <= I <= N, e.g. 2/4`);
  return { index: +m[1], count: +m[2] };
}

function parseFormat(f: string | undefined): Format {
  const format = (f ?? "console") as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format ${f}: expected one of ${FORMATS.join(", ")}`);
  return format;
}

function write(r: Report, o: { format?: string; out?: string; json?: string; markdown?: string; junit?: string }): void {
  const format = parseFormat(o.format);
  if (o.out) {
    writeFileSync(o.out, render(r, format));
    process.stderr.write(`${summaryLine(r)}\n`);
  } else process.stdout.write(render(r, format));
  if (o.json) writeFileSync(o.json, render(r, "json"));
  if (o.markdown) writeFileSync(o.markdown, render(r, "markdown"));
  if (o.junit) writeFileSync(o.junit, render(r, "junit"));
}

const NOTIFY = {
  "notify-email": { type: "string", multiple: true }, "notify-from": { type: "string" },
  "notify-webhook": { type: "string" }, "notify-on": { type: "string" },
} as const;
const OUTPUT = { format: { type: "string" }, out: { type: "string" }, json: { type: "string" }, markdown: { type: "string" }, junit: { type: "string" } } as const;
const AFTER = { unmanaged: { type: "boolean" }, baseline: { type: "string" } } as const;

type AfterFlags = { "notify-email"?: string[]; "notify-from"?: string; "notify-webhook"?: string; "notify-on"?: string; unmanaged?: boolean; baseline?: string };

/** The options `complete` takes, from the flags; a baseline file not there yet (the first night) means none. */
function afterOptions(o: AfterFlags): CompleteOptions {
  const notifyOn = (o["notify-on"] ?? "always") as NotifyOn;
  if (!["always", "drift", "new"].includes(notifyOn)) throw new UsageError(`--notify-on ${o["notify-on"]}: expected always, drift or new`);
  if (o["notify-on"] && !o["notify-email"]?.length && o["notify-webhook"] === undefined) throw new UsageError("--notify-on applies to --notify-email and --notify-webhook: give one");
  // An empty URL posts nothing, so a workflow can pass a secret that is not set.
  const webhook = o["notify-webhook"] || undefined;
  if (webhook !== undefined && !/^https?:\/\/[^/]/i.test(webhook)) throw new UsageError("--notify-webhook: expected an http:// or https:// URL");
  let baseline: CompleteOptions["baseline"];
  if (o.baseline !== undefined) {
    if (existsSync(o.baseline)) baseline = parseReport(readFileSync(o.baseline, "utf8"), o.baseline);
    else process.stderr.write(`cloudplatform-drift: no baseline at ${o.baseline}: every finding is new\n`);
  }
  return {
    unmanaged: !!o.unmanaged,
    baseline,
    notifyOn,
    notify: o["notify-email"]?.length ? { to: o["notify-email"], from: o["notify-from"] } : undefined,
    webhook,
  };
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === "merge") {
    const { values: o, positionals } = parseArgs({ args: argv.slice(1), options: { ...OUTPUT, ...NOTIFY, ...AFTER }, allowPositionals: true });
    if (!positionals.length) throw new UsageError("merge needs the shards' JSON reports: cloudplatform-drift merge reports/*.json");
    parseFormat(o.format);
    const after = afterOptions(o);
    const merged = mergeReports(positionals.map((f) => parseReport(readFileSync(f, "utf8"), f)));
    for (const s of merged.stacks.filter((x) => x.error?.kind === "missing")) process.stderr.write(`cloudplatform-drift: ${s.error!.message}\n`);
    await complete(merged, after);
    write(merged, o);
    return exitCode(merged);
  }
  const { values: o } = parseArgs({
    args: argv,
    options: {
      ...OUTPUT,
      stack: { type: "string", multiple: true },
      dir: { type: "string", multiple: true },
      all: { type: "boolean" },
      backend: { type: "string", multiple: true },
      shard: { type: "string" },
      parallel: { type: "string" },
      plan: { type: "boolean" },
      remediate: { type: "boolean" },
      "allow-replace": { type: "boolean" },
      ...AFTER,
      ...NOTIFY,
      help: { type: "boolean", short: "h" },
    },
  });
  if (o.help) {
    process.stdout.write(HELP);
    return EXIT.clean;
  }
  parseFormat(o.format);
  if (!o.stack?.length && !o.dir?.length && !o.all) throw new UsageError("name the stacks: --stack NAME, --dir DIR or --all (see --help)");
  const parallel = o.parallel === undefined ? availableParallelism() : Number(o.parallel);
  if (!Number.isInteger(parallel) || parallel < 1) throw new UsageError(`--parallel ${o.parallel}: expected a whole number of at least 1`);
  if (o["allow-replace"] && !o.remediate) throw new UsageError("--allow-replace only applies with --remediate");
  const opts: RunOptions = {
    sources: { stacks: o.stack ?? [], dirs: o.dir ?? [], all: !!o.all, backends: o.backend ?? [] },
    shard: parseShard(o.shard),
    parallel,
    plan: !!o.plan,
    remediate: !!o.remediate,
    allowReplace: !!o["allow-replace"],
    ...afterOptions(o),
  };
  const report = await run(opts);
  write(report, o);
  return exitCode(report);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`cloudplatform-drift: ${err.message}\n`);
      process.exit(EXIT.failed);
    },
  );
}
