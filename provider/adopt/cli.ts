#!/usr/bin/env node
// cloudplatform-adopt: adopts a whole workspace into a Pulumi program in three steps.
//
//   cloudplatform-adopt [--project P]... [--type T]... --out adopt.json   the bulk-import file
//   pulumi import --file adopt.json --out index.ts                        the program (TS, Python or Go)
//   cloudplatform-adopt secrets --file adopt.json --program index.ts      secrets into config, read by the program
//
// It reads the workspace with the provider's own client and settings: CLOUDPLATFORM_API_KEY,
// CLOUDPLATFORM_BASE_URL and CLOUDPLATFORM_WORKSPACE_ID (or --workspace).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { ownEnvVars, secretFilesOf } from "../resources/serviceConfig";
import { resolveConfig, makeContext } from "../config";
import type { Context } from "../resources/framework";
import { discover, KINDS, type Kind } from "./discover";
import { discoverListed, unmanagedList } from "./fromDrift";
import { buildImportFile, servicesToComplete, valuesToComplete, type ImportFile } from "./importFile";
import { completeProgram, configKeys, languageOf, type ServiceArgs, type ValueArgs } from "./program";

export const HELP = `usage: cloudplatform-adopt [--project NAME|ID]... [--type TYPE]... [--from-drift FILE] [--workspace ID] [--out FILE]
       cloudplatform-adopt secrets --file FILE --program FILE [--stack NAME] [--print]

Writes a Pulumi bulk-import file for the objects of a workspace, parents before children, each
with a logical name derived from its platform name. Then:

  pulumi import --file adopt.json --protect=false --out index.ts   (index.ts, __main__.py or main.go)
  cloudplatform-adopt secrets --file adopt.json --program index.ts

The import file holds ids and names only. A Service's env vars and secret files are left out of
the import where any of them is secret; \`secrets\` adds them to the program, plain values as
they are and secret ones read from stack config, and sets that config (pulumi config set
--secret, the value read from the API and passed on stdin, never printed).

Types: ${KINDS.join(", ")}.

options:
  --project NAME|ID  adopt only this project (repeatable); workspace-level types (zones, mail
                     domains, suppressions, buckets) are then left out unless named by --type
  --type TYPE        adopt only these types (repeatable, or comma-separated)
  --from-drift FILE  adopt exactly what a cloudplatform-drift --unmanaged JSON report lists as
                     unmanaged (an env var or secret file of a managed service as an EnvVar or a
                     SecretFile, its value read from config by \`secrets\`)
  --workspace ID     the workspace (default: CLOUDPLATFORM_WORKSPACE_ID, else the key's only one)
  --out FILE         write the import file here (default: stdout)

secrets:
  --file FILE        the import file cloudplatform-adopt wrote
  --program FILE     the program pulumi import wrote (.ts, .py or .go); edited in place
  --stack NAME       the stack whose config receives the secrets (default: the selected stack)
  --print            set nothing: print the pulumi config set commands, values left out

environment: CLOUDPLATFORM_API_KEY (required), CLOUDPLATFORM_BASE_URL, CLOUDPLATFORM_WORKSPACE_ID
`;

function context(workspace?: string): Context {
  const config = resolveConfig(() => undefined);
  return makeContext({ ...config, workspaceId: workspace ?? config.workspaceId });
}

function parseKinds(values: string[] | undefined): Kind[] | undefined {
  const names = (values ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
  return names.map((n) => {
    const kind = KINDS.find((k) => k.toLowerCase() === n.toLowerCase());
    if (!kind) throw new Error(`--type ${n}: expected one of ${KINDS.join(", ")}`);
    return kind;
  });
}

/** Writes the import file; returns the summary printed on stderr. */
export async function adopt(ctx: Context, opts: { projects?: string[]; types?: Kind[]; fromDrift?: { text: string; source: string } }): Promise<{ file: ImportFile; summary: string }> {
  if (opts.fromDrift && (opts.projects?.length || opts.types?.length)) throw new Error("--from-drift adopts what the report lists: give it without --project or --type");
  const found = opts.fromDrift ? await discoverListed(ctx, unmanagedList(opts.fromDrift.text, opts.fromDrift.source)) : await discover(ctx, opts);
  const file = buildImportFile(found);
  const counts = new Map<string, number>();
  for (const i of found.items) counts.set(i.kind, (counts.get(i.kind) ?? 0) + 1);
  const lines = [
    `workspace ${found.workspaceId}: ${found.items.length} objects to adopt${counts.size ? `: ${[...counts].map(([k, n]) => `${n} ${k}`).join(", ")}` : ""}`,
    ...found.skipped.map((s) => `left out: ${s}`),
  ];
  const complete = servicesToComplete(file);
  if (complete.length) {
    lines.push(`${complete.length} service(s) hold secrets, left out of the import: after pulumi import, run cloudplatform-adopt secrets --file <this file> --program <the program>`);
  }
  const values = valuesToComplete(file);
  if (values.length) {
    lines.push(`${values.length} env var(s) and secret file(s): their values are left out of the import: after pulumi import, run cloudplatform-adopt secrets --file <this file> --program <the program>`);
  }
  return { file, summary: lines.join("\n") };
}

/** The arguments each service gets back, with the secret values by config key. */
export async function serviceSecrets(ctx: Context, file: ImportFile): Promise<{ services: ServiceArgs[]; values: Map<string, { value: string; what: string }> }> {
  const services: ServiceArgs[] = [];
  const values = new Map<string, { value: string; what: string }>();
  for (const s of servicesToComplete(file)) {
    const vars = s.inputs.includes("envVars") ? await ownEnvVars(ctx.client, s.serviceId) : undefined;
    const files = s.inputs.includes("secretFiles") ? await secretFilesOf(ctx.client, s.serviceId) : undefined;
    const keys = configKeys(s.name, (vars ?? []).filter((v) => v.secret).map((v) => v.key), (files ?? []).map((f) => f.path));
    const args: ServiceArgs = { name: s.name };
    if (vars) {
      args.envVars = vars.map((v) => {
        if (!v.secret) return { key: v.key, scope: v.scope, secret: false, value: v.value ?? "" };
        const configKey = keys.vars.get(v.key)!;
        values.set(configKey, { value: v.value ?? "", what: `env var ${v.key} of service ${s.name}` });
        return { key: v.key, scope: v.scope, secret: true, configKey };
      });
    }
    if (files) {
      args.secretFiles = files.map((f) => {
        const configKey = keys.files.get(f.path)!;
        values.set(configKey, { value: f.content ?? "", what: `secret file ${f.path} of service ${s.name}` });
        return { path: f.path, configKey };
      });
    }
    services.push(args);
  }
  return { services, values };
}

/** Each adopted EnvVar's value and SecretFile's content, read into config as `<name>-value` / `<name>-content`. */
export async function valueSecrets(ctx: Context, file: ImportFile): Promise<{ singles: ValueArgs[]; values: Map<string, { value: string; what: string }> }> {
  const singles: ValueArgs[] = [];
  const values = new Map<string, { value: string; what: string }>();
  for (const v of valuesToComplete(file)) {
    const configKey = `${v.name}-${v.type === "EnvVar" ? "value" : "content"}`;
    if (v.type === "EnvVar") {
      const at = v.id.indexOf("/");
      const key = v.id.slice(at + 1);
      const found = (await ownEnvVars(ctx.client, v.id.slice(0, at))).find((x) => x.key === key);
      values.set(configKey, { value: found?.value ?? "", what: `env var ${key} (${v.name})` });
    } else {
      const at = v.id.indexOf(":");
      const path = v.id.slice(at + 1);
      const found = (await secretFilesOf(ctx.client, v.id.slice(0, at))).find((f) => f.path === path);
      values.set(configKey, { value: found?.content ?? "", what: `secret file ${path} (${v.name})` });
    }
    singles.push({ name: v.name, type: v.type, configKey });
  }
  return { singles, values };
}

/** `secrets`: completes the program and sets its secret config. */
async function secretsCommand(args: string[]): Promise<void> {
  const { values: o } = parseArgs({
    args,
    options: { file: { type: "string" }, program: { type: "string" }, stack: { type: "string" }, print: { type: "boolean" }, workspace: { type: "string" } },
  });
  if (!o.file || !o.program) throw new Error("secrets needs --file (the import file) and --program (the program pulumi import wrote)");
  const file = JSON.parse(readFileSync(o.file, "utf8")) as ImportFile;
  const ctx = context(o.workspace);
  try {
    const { services, values } = await serviceSecrets(ctx, file);
    const { singles, values: singleValues } = await valueSecrets(ctx, file);
    for (const [k, v] of singleValues) values.set(k, v);
    const text = readFileSync(o.program, "utf8");
    writeFileSync(o.program, completeProgram(text, languageOf(o.program), services, singles));
    const stack = o.stack ? ["--stack", o.stack] : [];
    for (const [key, { value, what }] of values) {
      const command = `pulumi config set --secret ${[...stack, key].join(" ")}`;
      if (o.print || value === "") {
        // A blanked value (a read-only key) cannot be set from here.
        process.stdout.write(`${command}   # ${what}${value === "" && !o.print ? ": the API shows it blank; set it by hand" : ""}\n`);
        continue;
      }
      const r = spawnSync("pulumi", ["config", "set", "--secret", "--raw", ...stack, key], { cwd: dirname(o.program), input: value, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`${command} failed: ${(r.stderr || r.error?.message || "").trim()}`);
      process.stderr.write(`set ${key} (${what})\n`);
    }
    process.stderr.write(`${o.program}: ${services.length + singles.length} resource(s) completed; secrets read from config\n`);
  } finally {
    await closeClient(ctx);
  }
}

/** Closes the context's client, if it made one (it cannot without a key). */
async function closeClient(ctx: Context): Promise<void> {
  try {
    await ctx.client.close();
  } catch {
    // no client was made
  }
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "secrets") return secretsCommand(argv.slice(1));
  const { values: o } = parseArgs({
    args: argv,
    options: {
      project: { type: "string", multiple: true },
      type: { type: "string", multiple: true },
      "from-drift": { type: "string" },
      workspace: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (o.help) {
    process.stdout.write(HELP);
    return;
  }
  const ctx = context(o.workspace);
  try {
    const fromDrift = o["from-drift"] ? { text: readFileSync(o["from-drift"], "utf8"), source: o["from-drift"] } : undefined;
    const { file, summary } = await adopt(ctx, { projects: o.project, types: parseKinds(o.type), fromDrift });
    const json = `${JSON.stringify(file, null, 2)}\n`;
    if (o.out) writeFileSync(o.out, json);
    else process.stdout.write(json);
    process.stderr.write(`${summary}\n`);
  } finally {
    await closeClient(ctx);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: Error) => {
    process.stderr.write(`cloudplatform-adopt: ${err.message}\n`);
    process.exit(1);
  });
}
